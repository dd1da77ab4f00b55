// SPDX-License-Identifier: LGPL-2.1-or-later
#include "drain_thread.hpp"

#include <utility>

namespace ef::gst {

void DrainThread::request(std::function<void()> job) {
  if (!job_)
    job_ = std::move(job);  // the first request: no thread reads it yet
  pending_.store(true);
  if (running_.exchange(true))
    return;  // the running thread sees `pending_`
  if (thread_.joinable())
    thread_.join();  // it cleared `running_`: it is returning
  thread_ = std::thread([this] { run(); });
}

void DrainThread::run() {
  for (;;) {
    while (pending_.exchange(false))
      job_();
    running_.store(false);
    // A request between the loop and the store above found the thread
    // running and left it the job: take it back, unless a new thread did.
    if (!pending_.load() || running_.exchange(true))
      return;
  }
}

void DrainThread::join() {
  if (thread_.joinable())
    thread_.join();
}

}  // namespace ef::gst
