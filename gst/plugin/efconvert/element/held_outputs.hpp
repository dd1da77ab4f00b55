// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipelined read-back (readback-depth N > 0): an output whose bytes are on
// their way from the GPU is held, and pushed once N later frames have been
// rendered, so the streaming thread renders frame k + N while the GPU still
// reads frame k back. Outputs after a held one are held too: order is kept.
//
// A sink prerolls on the first buffer it gets, and until it has one the
// pipeline does not reach PAUSED; with a tee, the other branch's sink
// blocks the tee once it has prerolled, so no later frame may come that
// would release a held one. So nothing is held while the element is not
// PLAYING (a non-live pipeline prerolls in PAUSED), nor after a flush
// before one output went out (the sinks preroll again after a flushing
// seek in PLAYING, the element staying PLAYING), and the outputs held when
// the element leaves PLAYING are pushed then (drain(), from a thread of
// its own: gstefconvert).
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <cstddef>
#include <functional>

#include "efconvert/backends/backend.hpp"
#include "common/fifo.hpp"
#include "common/frame_errors.hpp"
#include "drain_thread.hpp"

namespace ef::gst {

// Streaming thread (or a thread holding the stream lock), but for
// set_playing(), playing() and any(). `backend` is the one that converted
// the held outputs; a read-back that fails is a bad frame under `errors`'
// rule.
class HeldOutputs {
 public:
  // Before the base class makes the next output: nothing is in flight yet.
  void start_output() { last_in_flight_ = false; }
  // Whether the frame just converted left a read-back in flight.
  void set_last_in_flight(bool in_flight) { last_in_flight_ = in_flight; }
  // The element's state change: outputs are held only while PLAYING. Any
  // thread.
  // Sequentially consistent with any(): a thread that clears it and then
  // finds nothing held knows that the streaming thread will hold nothing
  // more (pass() reads it after it holds an output).
  void set_playing(bool playing) { playing_.store(playing); }
  bool playing() const { return playing_.load(); }
  // Whether any output is held. Any thread.
  bool any() const { return count_.load() > 0; }

  // Takes the output the base class made (*out, may be null): held while it
  // or one before it is in flight. Then, while more than `depth` are held
  // (the depth may just have been lowered, and is 0 while a preroll may
  // need the frames), the oldest goes out in *out; the base class asks
  // again while buffers are returned.
  GstFlowReturn pass(GstElement *element, ConvertBackend *backend, FrameErrors &errors, guint depth,
                     GstBuffer **out);

  // A flush or a stop: outputs in flight are forgotten, never pushed. A
  // preroll point: the next output is not held.
  void drop(ConvertBackend *backend);

  // Every held output, read back and pushed on `src`: before EOS, caps, a
  // segment or any other serialized event, which must not overtake them.
  // Once a push fails (flushing, not linked) the rest are dropped.
  void drain(GstElement *element, GstPad *src, ConvertBackend *backend, FrameErrors &errors);

  // The element left PLAYING: runs `job` (the same every time: it takes the
  // stream lock and drains) on the drain thread where outputs are held.
  // The state change's thread.
  void left_playing(std::function<void()> job);
  // The element goes to READY, its pads deactivated: the drain thread ends.
  void join_drain() { drainer_.join(); }

 private:
  struct Held {
    GstBuffer *buffer;
    bool in_flight;  // its bytes are still on their way from the GPU
  };

  // The oldest held output, its read-back completed where it was in flight.
  GstFlowReturn release_oldest(GstElement *element, ConvertBackend *backend, FrameErrors &errors,
                               GstBuffer **out);

  // How many outputs may be held now: `depth`, or 0 while a sink may wait
  // for them to preroll.
  guint depth_now(guint depth) const { return playing() && primed_ ? depth : 0; }

  void counted() { count_.store(held_.size()); }

  Fifo<Held> held_;               // oldest first
  std::atomic<size_t> count_{0};  // held_.size(), for any()
  bool last_in_flight_ = false;
  bool primed_ = true;  // false from a flush until an output went out
  std::atomic<bool> playing_{false};
  DrainThread drainer_;
};

}  // namespace ef::gst
