// SPDX-License-Identifier: LGPL-2.1-or-later
// Back-pressure into Vulkan: an input frame imported without a copy is held
// here (a reference on the input buffer, and so on the producer's pool slot)
// until the application arms the frame's slot-release gate, or until the
// release timeout passes, when the handler warns and the frame is released
// anyway: never a freeze. One thread waits on the oldest frame first (an
// application releases in the order it consumes); its waits block on the
// gate, they do not spin.
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "ef/slot_release.hpp"

namespace ef::gst {

class ReleaseQueue {
 public:
  // Called on the queue's thread with a frame whose gate was not armed in
  // time (still held) and the number it was held with.
  using TimeoutHandler = std::function<void(GstBuffer *frame, uint64_t number)>;

  explicit ReleaseQueue(TimeoutHandler on_timeout);
  ~ReleaseQueue();  // releases everything held
  ReleaseQueue(const ReleaseQueue &) = delete;
  ReleaseQueue &operator=(const ReleaseQueue &) = delete;

  // Takes a reference on `buffer` and drops it once `release` is armed.
  void hold(GstBuffer *buffer, SlotRelease release, uint64_t number,
            std::chrono::nanoseconds timeout);
  // Back-pressure for producers that make a new memory per frame (no pool
  // bounds them): blocks while `limit` frames or more are held (0: no
  // limit) until the oldest goes back, armed or timed out, or until
  // release_all(). Whether it had to wait.
  bool wait_for_room(size_t limit);
  // Drops every held frame now (stop, flush).
  void release_all();
  size_t held() const;

 private:
  struct Held {
    GstBuffer *buffer;
    SlotRelease release;
    uint64_t number;
    std::chrono::steady_clock::time_point deadline;
  };
  void run();

  TimeoutHandler on_timeout_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::condition_variable room_;  // a frame went back
  std::deque<Held> held_;
  size_t releasing_ = 0;  // taken off held_, not yet unreffed
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ef::gst
