// SPDX-License-Identifier: LGPL-2.1-or-later
// Element statistics: a fixed list of named counters, shown as read-only
// guint64 properties, as one "stats" GstStructure property, and posted as an
// element message on EOS (so `gst-launch-1.0 -m` prints them).
#pragma once

#include <gst/gst.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace ef::gst {

struct CounterSpec {
  const char *name;   // property and structure field name
  const char *blurb;  // shown by gst-inspect
};

// Installs one read-only guint64 property per counter with ids first_id,
// first_id + 1, ..., then a "stats" GstStructure property with id
// first_id + counters.size().
void install_stat_properties(GObjectClass *klass, guint first_id,
                             std::span<const CounterSpec> counters, const char *stats_blurb);

// A snapshot of an element's counters, to fill in the rest from its caches.
template <size_t N>
std::array<uint64_t, N> load_counters(const std::array<std::atomic<uint64_t>, N> &counters) {
  std::array<uint64_t, N> values{};
  for (size_t i = 0; i < N; ++i)
    values[i] = counters[i].load(std::memory_order_relaxed);
  return values;
}

GstStructure *stats_structure(const char *name, std::span<const CounterSpec> counters,
                              std::span<const uint64_t> values);

// Adds the "sink" and "src" always-pads of a one-in one-out element.
void add_pad_templates(GstElementClass *klass, const char *sink_caps, const char *src_caps);

// Posts stats_structure() as an element message from `element`.
void post_stats_message(GstElement *element, const char *name,
                        std::span<const CounterSpec> counters, std::span<const uint64_t> values);

}  // namespace ef::gst
