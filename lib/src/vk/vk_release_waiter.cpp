// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/vk_release_waiter.hpp"

#include <vulkan/vulkan.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ef {

namespace {

// Short enough that a stopping waiter exits promptly, long enough that an
// idle-but-busy GPU costs no measurable CPU.
constexpr uint64_t kWaitSliceNs = 50'000'000;

struct Job {
  VkDevice device;
  uint64_t handle;  // VkFence or VkSemaphore
  uint64_t value;   // timeline value; unused for fences
  bool timeline;
  SlotRelease release;
};

// VK_SUCCESS when retired, VK_TIMEOUT when not yet, an error otherwise.
VkResult wait_slice(const Job &job) {
  if (!job.timeline) {
    auto fence = reinterpret_cast<VkFence>(job.handle);
    return vkWaitForFences(job.device, 1, &fence, VK_TRUE, kWaitSliceNs);
  }
  auto semaphore = reinterpret_cast<VkSemaphore>(job.handle);
  VkSemaphoreWaitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &job.value;
  return vkWaitSemaphores(job.device, &info, kWaitSliceNs);
}

}  // namespace

struct VkReleaseWaiter::State {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Job> jobs;
  bool stopping = false;
  std::thread thread;

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      cv.wait(lock, [&] { return stopping || !jobs.empty(); });
      if (jobs.empty())
        return;
      Job job = jobs.front();
      lock.unlock();
      VkResult r = stopping ? VK_SUCCESS : wait_slice(job);
      lock.lock();
      if (r == VK_TIMEOUT && !stopping)
        continue;
      // Retired, or the device failed: either way the slot is free to reuse.
      jobs.pop_front();
      job.release.arm();
    }
  }

  Result<void> push(Job job) {
    if (!job.device || !job.handle)
      return Error{EINVAL, std::string("VkReleaseWaiter: null ") + (!job.device    ? "VkDevice"
                                                                    : job.timeline ? "VkSemaphore"
                                                                                   : "VkFence")};
    {
      std::lock_guard lock(mutex);
      jobs.push_back(std::move(job));
    }
    cv.notify_one();
    return {};
  }
};

VkReleaseWaiter::VkReleaseWaiter() : state_(std::make_shared<State>()) {
  state_->thread = std::thread([s = state_] { s->run(); });
}

VkReleaseWaiter::~VkReleaseWaiter() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_one();
  state_->thread.join();
  for (const Job &job : state_->jobs)
    job.release.arm();
}

Result<void> VkReleaseWaiter::arm_after_fence(void *device, uint64_t fence, SlotRelease release) {
  return state_->push(Job{static_cast<VkDevice>(device), fence, 0, false, std::move(release)});
}

Result<void> VkReleaseWaiter::arm_after_timeline(void *device, uint64_t semaphore, uint64_t value,
                                                 SlotRelease release) {
  return state_->push(
      Job{static_cast<VkDevice>(device), semaphore, value, true, std::move(release)});
}

uint64_t VkReleaseWaiter::pending() const {
  std::lock_guard lock(state_->mutex);
  return state_->jobs.size();
}

VkReleaseWaiter &VkReleaseWaiter::shared() {
  static auto *waiter = new VkReleaseWaiter();
  return *waiter;
}

}  // namespace ef
