// SPDX-License-Identifier: LGPL-2.1-or-later
// Arms slot-release gates when GPU work has retired: a VkFence signalled, or
// a timeline semaphore reaching a value. A consumer that submits its work on
// frame N and hands the fence here never blocks its own thread, and the
// producer wakes as soon as the GPU is done (arming on work done, not on submit).
//
// One waiter thread serves the jobs in the order they were given: GPU work on
// one queue retires in submission order, so the front job is always the next
// to finish. Waits are vkWaitForFences / vkWaitSemaphores with a bounded
// timeout, never a spin. A wait that fails (device lost) arms the gate
// anyway: a producer must never freeze on a consumer's broken device.
//
// Built when the Vulkan loader is found (EF_HAVE_VULKAN); the handles cross as
// void * and uint64_t so this header needs no Vulkan headers.
#pragma once

#include <cstdint>
#include <memory>

#include "ef/result.hpp"
#include "ef/slot_release.hpp"

namespace ef {

class VkReleaseWaiter {
 public:
  VkReleaseWaiter();
  ~VkReleaseWaiter();  // arms every job still waiting, then joins
  VkReleaseWaiter(const VkReleaseWaiter &) = delete;
  VkReleaseWaiter &operator=(const VkReleaseWaiter &) = delete;

  // EINVAL for a null device or handle. The fence (or semaphore) must stay
  // alive until the gate is armed.
  Result<void> arm_after_fence(void *device, uint64_t fence, SlotRelease release);
  Result<void> arm_after_timeline(void *device, uint64_t semaphore, uint64_t value,
                                  SlotRelease release);

  // Jobs given and not yet armed.
  uint64_t pending() const;

  // The process-wide waiter the C ABI and libgstef use. Never destroyed: its
  // thread may still wait when static destructors run.
  static VkReleaseWaiter &shared();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace ef
