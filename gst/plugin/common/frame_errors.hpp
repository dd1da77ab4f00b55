// SPDX-License-Identifier: LGPL-2.1-or-later
// What an element does with a frame it cannot use (an invalid layout, a
// truncated buffer, unmappable memory, a refused VkImage): GstVideoDecoder's
// max-errors convention, one rule for every ef element. A bad frame is
// posted as a WARNING and dropped while the run of consecutive bad frames,
// this one included, is at most max-errors; beyond that it is posted as an
// ERROR and the element returns GST_FLOW_ERROR. max-errors -1 never fails.
// A good frame ends the run.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>

#include <atomic>
#include <cstdint>
#include <source_location>
#include <string>

namespace ef::gst {

inline constexpr gint kDefaultMaxErrors = 0;

class FrameErrors {
 public:
  enum class Verdict { Drop, Fail };

  // Any thread (the property); read by the streaming thread.
  void set_max_errors(gint max) { max_errors_.store(max, std::memory_order_relaxed); }
  gint max_errors() const { return max_errors_.load(std::memory_order_relaxed); }

  // Streaming thread: one bad frame, and what to do with it. A dropped
  // frame is counted.
  Verdict bad_frame();
  // Streaming thread: a frame went out; the next bad one starts a new run.
  void good_frame() { consecutive_ = 0; }
  // A new stream (start, stop): no run carried over.
  void reset() { consecutive_ = 0; }

  uint64_t consecutive() const { return consecutive_; }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  std::atomic<gint> max_errors_{kDefaultMaxErrors};
  uint64_t consecutive_ = 0;
  std::atomic<uint64_t> dropped_{0};
};

// Posts a bad frame from `element` by errors.bad_frame(): a WARNING and
// GST_BASE_TRANSFORM_FLOW_DROPPED, or an ERROR and GST_FLOW_ERROR. `text` is
// the message a user reads; the debug part says how many bad frames ran.
GstFlowReturn refuse_frame(GstElement *element, FrameErrors &errors, GQuark domain, gint code,
                           const std::string &text, const std::string &debug = {},
                           std::source_location where = std::source_location::current());

// The "max-errors" property every element installs with this id.
void install_max_errors_property(GObjectClass *klass, guint id);

}  // namespace ef::gst
