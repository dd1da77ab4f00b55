// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/slot_release.hpp"

#include <algorithm>
#include <cerrno>

namespace ef {

void SlotGate::store(uint64_t value) {
  uint64_t current = value_.load(std::memory_order_relaxed);
  while (current < value && !value_.compare_exchange_weak(current, value, std::memory_order_release,
                                                          std::memory_order_relaxed)) {
  }
  // Taking the mutex between the store and the notify closes the window in
  // which a waiter has checked the value but not yet started waiting.
  { std::lock_guard lock(mutex_); }
  cv_.notify_all();
}

uint64_t SlotGate::wait_for(uint64_t expected, std::chrono::nanoseconds timeout) const {
  uint64_t seen = load();
  if (seen >= expected)
    return seen;
  auto reached = [&] {
    seen = load();
    return seen >= expected;
  };
  std::unique_lock lock(mutex_);
  // now() + nanoseconds::max() would overflow and return at once: a timeout
  // whose deadline does not fit the clock waits without one.
  const auto now = std::chrono::steady_clock::now();
  if (timeout >= std::chrono::steady_clock::time_point::max() - now)
    cv_.wait(lock, reached);
  else
    cv_.wait_until(lock, now + std::max(timeout, std::chrono::nanoseconds(0)), reached);
  return seen;
}

Result<void> SlotGate::wait(uint64_t expected, std::chrono::nanoseconds timeout) const {
  uint64_t seen = wait_for(expected, timeout);
  if (seen >= expected)
    return {};
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                std::max(timeout, std::chrono::nanoseconds(0)))
                .count();
  return Error{ETIMEDOUT, "not released within " + std::to_string(ms) + " ms: gate expected " +
                              std::to_string(expected) + ", observed " + std::to_string(seen)};
}

SlotRing::SlotRing(uint32_t size) : slots_(size) {}

Result<void> SlotRing::wait_released(uint32_t slot, std::chrono::nanoseconds timeout) const {
  if (slot >= slots_.size())
    return Error{EINVAL, "slot " + std::to_string(slot) + " is outside the ring of " +
                             std::to_string(slots_.size())};
  const Slot &s = slots_[slot];
  if (auto released = s.gate->wait(s.handed_out, timeout); !released)
    return Error{ETIMEDOUT, "slot " + std::to_string(slot) + " " + released.error().message};
  return {};
}

Result<SlotRelease> SlotRing::acquire(uint32_t slot, std::chrono::nanoseconds timeout) {
  if (auto released = wait_released(slot, timeout); !released)
    return released.error();
  Slot &s = slots_[slot];
  return SlotRelease(s.gate, ++s.handed_out);
}

}  // namespace ef
