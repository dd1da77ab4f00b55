// SPDX-License-Identifier: LGPL-2.1-or-later
#include "release_queue.hpp"

namespace ef::gst {

namespace {
// A wait is cut into slices so that release_all() and a new front frame are
// noticed promptly; 50 wake-ups a second cost no measurable CPU.
constexpr std::chrono::milliseconds kSlice{20};
}  // namespace

ReleaseQueue::ReleaseQueue(TimeoutHandler on_timeout)
    : on_timeout_(std::move(on_timeout)), thread_([this] { run(); }) {}

ReleaseQueue::~ReleaseQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  room_.notify_all();
  thread_.join();
  release_all();
}

void ReleaseQueue::hold(GstBuffer *buffer, SlotRelease release, uint64_t number,
                        std::chrono::nanoseconds timeout) {
  gst_buffer_ref(buffer);
  {
    std::lock_guard lock(mutex_);
    held_.push_back(
        Held{buffer, std::move(release), number, std::chrono::steady_clock::now() + timeout});
  }
  cv_.notify_all();
}

bool ReleaseQueue::wait_for_room(size_t limit) {
  std::unique_lock lock(mutex_);
  auto room = [&] { return stopping_ || held_.size() + releasing_ < limit; };
  if (limit == 0 || room())
    return false;
  room_.wait(lock, room);
  return true;
}

void ReleaseQueue::release_all() {
  std::deque<Held> dropped;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(held_);
  }
  for (Held &h : dropped)
    gst_buffer_unref(h.buffer);
  room_.notify_all();
}

size_t ReleaseQueue::held() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

void ReleaseQueue::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (held_.empty()) {
      cv_.wait(lock, [&] { return stopping_ || !held_.empty(); });
      continue;
    }
    const SlotRelease release = held_.front().release;
    const auto deadline = held_.front().deadline;
    lock.unlock();
    const auto now = std::chrono::steady_clock::now();
    const bool armed =
        release.gate()->wait_for(release.value(), std::min<std::chrono::nanoseconds>(
                                                      kSlice, std::max(deadline - now, {}))) >=
        release.value();
    const bool late = !armed && std::chrono::steady_clock::now() >= deadline;
    lock.lock();
    // The front may have changed meanwhile (release_all()).
    if (held_.empty() || held_.front().release.gate() != release.gate() ||
        held_.front().release.value() != release.value() || (!armed && !late))
      continue;
    Held done = std::move(held_.front());
    held_.pop_front();
    ++releasing_;  // counts until unreffed: what the frame pins is still there
    lock.unlock();
    if (late)
      on_timeout_(done.buffer, done.number);
    gst_buffer_unref(done.buffer);
    lock.lock();
    --releasing_;
    room_.notify_all();
  }
}

}  // namespace ef::gst
