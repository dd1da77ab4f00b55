// SPDX-License-Identifier: LGPL-2.1-or-later
// Why a frame was not imported but copied, and what an element says about
// it: every decline counted and logged, the first of each reason warned
// about on the bus (where the element posts them), the import switching
// itself off logged once. Shared by every import of every element, so the
// reasons and their texts mean the same everywhere.
#pragma once

#include <gst/gst.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace ef::gst {

enum class Decline : unsigned {
  SystemMemory,     // a plane's memory is not of a kind the import takes
  NoIdentity,       // a plane's memory has no buffer identity
  Refused,          // identity validation refused the cached import (ESTALE)
  ImportFailed,     // the import failed, now or earlier for these caps
  NoDriverSupport,  // the driver takes no import of this kind at all
};
inline constexpr unsigned kDeclineReasons = 5;

// The element's words for its import. The reasons every import shares have
// fixed texts; these differ by what is imported into what.
struct DeclineTexts {
  const char *what = "input";  // what is imported, in log lines
  // The bus warning's text before the reason; nullptr: nothing is posted.
  const char *heading = nullptr;
  const char *system_memory = "input is not fd-backed memory";
  const char *system_memory_detail = "memory is not a dma-buf or memfd";
  const char *import_failed = "the import failed";
  const char *no_driver_support = "the driver cannot import dma-bufs";
};

class DeclineLog {
 public:
  DeclineLog(GstDebugCategory *category, const DeclineTexts &texts)
      : category_(category), texts_(texts) {}

  // Counts the decline and logs it; the first of its reason since reset()
  // is posted as a WARNING on `element`'s bus, where the texts have a
  // heading.
  void decline(GstElement *element, Decline why, const std::string &detail);
  // A validation refusal: about one frame, the import stays on.
  void refused(GstElement *element, const std::string &error) const;
  // The import switched itself off until the caps change.
  void switched_off(GstElement *element, const std::string &error) const;

  const char *text(Decline why) const;
  const DeclineTexts &texts() const { return texts_; }
  uint64_t count() const;  // every reason
  uint64_t count(Decline why) const { return counts_[unsigned(why)].load(); }
  // A new stream: each reason is warned about again. Counts stay.
  void reset() { warned_ = 0; }

 private:
  GstDebugCategory *category_;
  DeclineTexts texts_;
  std::atomic<uint32_t> warned_{0};  // bit per reason
  std::array<std::atomic<uint64_t>, kDeclineReasons> counts_{};
};

}  // namespace ef::gst
