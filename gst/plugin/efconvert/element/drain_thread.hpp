// SPDX-License-Identifier: LGPL-2.1-or-later
// A thread of the element's own that runs a job when asked: the outputs
// held when the element left PLAYING are pushed from it (held_outputs.hpp).
// Neither the state change's thread (a sink blocks a push until it plays,
// and the state change would wait for itself) nor the streaming thread (it
// may not come again before PLAYING) can push them. Not GStreamer's
// gst_element_call_async(): its reference on the element could outlive the
// element's state changes and finalize the element, its GL display with
// it, on the pool's thread while the application makes the next one.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace ef::gst {

class DrainThread {
 public:
  DrainThread() = default;
  ~DrainThread() { join(); }
  DrainThread(const DrainThread &) = delete;
  DrainThread &operator=(const DrainThread &) = delete;

  // Runs `job` once more on the thread, starting it where it is not
  // running (a request while it runs makes it run the job again). The job
  // is the first request's: every request must pass the same. Any thread
  // but the drain thread itself, one at a time.
  void request(std::function<void()> job);
  // Waits until the thread has run every job asked of it and ended. The
  // caller makes sure the job returns (e.g. pads deactivated).
  void join();

 private:
  void run();

  std::function<void()> job_;  // the first request's
  std::atomic<bool> pending_{false};
  std::atomic<bool> running_{false};
  std::thread thread_;
};

}  // namespace ef::gst
