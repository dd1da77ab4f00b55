// SPDX-License-Identifier: LGPL-2.1-or-later
// Element statistics: a fixed list of named counters, read as one "stats"
// GstStructure property (guint64 fields) and posted as an element message on
// EOS (so `gst-launch-1.0 -m` prints them). The counters are not properties
// of their own: gst-inspect shows an element's settings, as it does for
// GStreamer's elements that keep statistics (rtpjitterbuffer, srtsink), and
// the blurb of "stats" names every field (what each counts where
// EF_STATS_BLURB=full, for the manual).
//
// An element declares its counters once, as a struct:
//
//   struct UploadCounters {
//     enum Counter : guint { kFrames, kHits, kCount };
//     static constexpr const char *kName = "efupload-stats";
//     static constexpr std::array<CounterSpec, kCount> kSpecs = {{
//         {kFrames, "frames", "Frames processed"},
//         {kHits, "hits", "Import cache hits"},
//     }};
//   };
//
// and keeps an ElementStats<UploadCounters>: `stats.add(kFrames)` when
// streaming; counters that live elsewhere (an import cache's) are filled in
// by the element's `derive` hook at every snapshot.
#pragma once

#include <gst/gst.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace ef::gst {

struct CounterSpec {
  guint id;           // the counter's enumerator: must equal its index
  const char *name;   // structure field name
  const char *blurb;  // what it counts, in the blurb of "stats" (no "; " inside)
};

// Each spec's id is its index, so an enumerator names its own table row.
template <size_t N>
constexpr bool specs_in_order(const std::array<CounterSpec, N> &specs) {
  for (size_t i = 0; i < N; ++i)
    if (specs[i].id != i)
      return false;
  return true;
}

// The blurb of "stats": the structure's name and its fields' names, short
// for gst-inspect; `full` (EF_STATS_BLURB=full, as the manual is built) adds
// what each counts, "name: what it counts; ...".
std::string stats_blurb(const char *name, std::span<const CounterSpec> counters, bool full);

// The untyped halves, shared by every instantiation.
void install_stats_property(GObjectClass *klass, guint id, std::span<const CounterSpec> counters,
                            const char *name);
GstStructure *stats_structure(const char *name, std::span<const CounterSpec> counters,
                              std::span<const uint64_t> values);
void post_stats_message(GstElement *element, const char *name,
                        std::span<const CounterSpec> counters, std::span<const uint64_t> values);

template <typename Counters>
class ElementStats {
 public:
  using Counter = typename Counters::Counter;
  static constexpr size_t kCount = Counters::kSpecs.size();
  using Values = std::array<uint64_t, kCount>;
  static_assert(kCount == size_t(Counters::kCount), "one spec per counter");
  static_assert(specs_in_order(Counters::kSpecs), "specs listed in enumerator order");

  // The "stats" property, with the id `id`.
  static void install_property(GObjectClass *klass, guint id) {
    install_stats_property(klass, id, Counters::kSpecs, Counters::kName);
  }

  // Fills in, at every snapshot, the counters the element keeps elsewhere.
  void derive(std::function<void(Values &)> fill) { derive_ = std::move(fill); }

  void add(Counter c, uint64_t n = 1) { counters_[c].fetch_add(n, std::memory_order_relaxed); }
  // For peaks: the counter becomes `value` if that is larger.
  void raise(Counter c, uint64_t value) {
    uint64_t seen = counters_[c].load(std::memory_order_relaxed);
    while (seen < value && !counters_[c].compare_exchange_weak(seen, value))
      ;
  }
  uint64_t get(Counter c) const { return counters_[c].load(std::memory_order_relaxed); }

  Values snapshot() const {
    Values v{};
    for (size_t i = 0; i < kCount; ++i)
      v[i] = counters_[i].load(std::memory_order_relaxed);
    if (derive_)
      derive_(v);
    return v;
  }

  GstStructure *structure() const {
    const Values v = snapshot();
    return stats_structure(Counters::kName, Counters::kSpecs, v);
  }

  // GObject::get_property for "stats" (installed with `stats_id`); false
  // for any other id.
  bool get_property(guint stats_id, guint id, GValue *value) const {
    if (id != stats_id)
      return false;
    g_value_take_boxed(value, structure());
    return true;
  }

  // The element message on EOS, named like the structure.
  void post(GstElement *element) const {
    const Values v = snapshot();
    post_stats_message(element, Counters::kName, Counters::kSpecs, v);
  }

 private:
  std::array<std::atomic<uint64_t>, kCount> counters_{};
  std::function<void(Values &)> derive_;
};

}  // namespace ef::gst
