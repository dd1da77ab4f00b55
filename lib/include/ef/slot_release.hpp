// SPDX-License-Identifier: LGPL-2.1-or-later
// Slot-release gates: consumer -> producer back-pressure for ring pools.
//
// A producer that recycles a ring of images hands each frame out with a
// SlotRelease: the slot's gate plus the value that means "this use of the
// slot is over". The consumer arms it once its GPU work on the frame has
// retired; the producer waits for the gate before it rewrites the slot.
// See docs/ARCHITECTURE.md, "Slot-release gates", for the sequence.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "ef/result.hpp"

namespace ef {

// The shared 64-bit gate. Values only grow: a wait for v is satisfied by any
// value >= v, so arming twice, or arming a later use first, is harmless.
class SlotGate {
 public:
  explicit SlotGate(uint64_t initial = 0) : value_(initial) {}

  // Stores `value` with release ordering (when it is larger than the current
  // one) and wakes every waiter.
  void store(uint64_t value);
  uint64_t load() const { return value_.load(std::memory_order_acquire); }

  // Blocks without spinning until the gate reaches `expected` or `timeout`
  // passes. Returns the value observed last. nanoseconds::max() (any timeout
  // whose deadline the steady clock cannot hold) waits forever; a negative
  // timeout is 0.
  uint64_t wait_for(uint64_t expected, std::chrono::nanoseconds timeout) const;
  // The same, as a result: ETIMEDOUT naming the expected and observed value.
  Result<void> wait(uint64_t expected, std::chrono::nanoseconds timeout) const;

 private:
  std::atomic<uint64_t> value_;
  mutable std::mutex mutex_;
  mutable std::condition_variable cv_;
};

// The consumer side: what a frame carries.
class SlotRelease {
 public:
  SlotRelease(std::shared_ptr<SlotGate> gate, uint64_t value)
      : gate_(std::move(gate)), value_(value) {}

  // Tells the producer the slot may be rewritten. Idempotent.
  void arm() const { gate_->store(value_); }

  const std::shared_ptr<SlotGate> &gate() const { return gate_; }
  uint64_t value() const { return value_; }

 private:
  std::shared_ptr<SlotGate> gate_;
  uint64_t value_;
};

// The producer side: one gate per slot of a ring of `size` slots.
class SlotRing {
 public:
  explicit SlotRing(uint32_t size);

  uint32_t size() const { return static_cast<uint32_t>(slots_.size()); }

  // Waits until the consumer released the slot's last use, then starts a new
  // use and returns the SlotRelease that ends it. ETIMEDOUT after `timeout`,
  // naming the slot, the expected and the observed value; EINVAL for a slot
  // out of range. Calls for one slot must come from one producer thread.
  Result<SlotRelease> acquire(uint32_t slot, std::chrono::nanoseconds timeout);

  // Waits for the slot's last use to be released, without starting a new one.
  Result<void> wait_released(uint32_t slot, std::chrono::nanoseconds timeout) const;

 private:
  struct Slot {
    std::shared_ptr<SlotGate> gate = std::make_shared<SlotGate>();
    uint64_t handed_out = 0;  // value of the last SlotRelease made for this slot
  };
  std::vector<Slot> slots_;
};

}  // namespace ef
