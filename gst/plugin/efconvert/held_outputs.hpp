// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipelined read-back (readback-depth N > 0): an output whose bytes are on
// their way from the GPU is held, and pushed once N later frames have been
// rendered, so the streaming thread renders frame k + N while the GPU still
// reads frame k back. Outputs after a held one are held too: order is kept.
#pragma once

#include <gst/gst.h>

#include <cstddef>
#include <deque>

#include "backend.hpp"
#include "common/frame_errors.hpp"

namespace ef::gst {

// Streaming thread only. `backend` is the one that converted the held
// outputs; a read-back that fails is a bad frame under `errors`' rule.
class HeldOutputs {
 public:
  // Before the base class makes the next output: nothing is in flight yet.
  void start_output() { last_in_flight_ = false; }
  // Whether the frame just converted left a read-back in flight.
  void set_last_in_flight(bool in_flight) { last_in_flight_ = in_flight; }

  // Takes the output the base class made (*out, may be null): held while it
  // or one before it is in flight. Then, while more than `depth` are held
  // (the depth may just have been lowered), the oldest goes out in *out;
  // the base class asks again while buffers are returned.
  GstFlowReturn pass(GstElement *element, ConvertBackend *backend, FrameErrors &errors, guint depth,
                     GstBuffer **out);

  // A flush or a stop: outputs in flight are forgotten, never pushed.
  void drop(ConvertBackend *backend);

  // Every held output, read back and pushed on `src`: before EOS, caps, a
  // segment or any other serialized event, which must not overtake them.
  // Once a push fails (flushing, not linked) the rest are dropped.
  void drain(GstElement *element, GstPad *src, ConvertBackend *backend, FrameErrors &errors);

 private:
  struct Held {
    GstBuffer *buffer;
    bool in_flight;  // its bytes are still on their way from the GPU
  };

  // The oldest held output, its read-back completed where it was in flight.
  GstFlowReturn release_oldest(GstElement *element, ConvertBackend *backend, FrameErrors &errors,
                               GstBuffer **out);

  std::deque<Held> held_;  // oldest first
  bool last_in_flight_ = false;
};

}  // namespace ef::gst
