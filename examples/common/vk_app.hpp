// SPDX-License-Identifier: LGPL-2.1-or-later
// The application side of a Vulkan device shared with efvkbridge, as the
// vk-consumer and vk-producer examples use it: an instance and device made
// the way the bridge wants them (external memory extensions, timeline
// semaphores), a queue lock both sides hold around vkQueueSubmit, a
// validation messenger that counts what it reports, and the bus handler that
// answers the bridge's NEED_CONTEXT. See docs/VKBRIDGE.md.
#pragma once

#include <gst/ef/gstef.h>
#include <gst/gst.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace ef::examples {

// What "no Vulkan here" exits with: meson counts the test as skipped.
inline constexpr int kExitSkip = 77;

class VkApp {
 public:
  // The first device with a compute queue; nullptr and *why when there is
  // none (or Vulkan cannot start). With EF_VK_VALIDATION=1 the Khronos
  // validation layer is enabled and its warnings and errors are counted.
  static std::unique_ptr<VkApp> create(std::string *why);
  ~VkApp();
  VkApp(const VkApp &) = delete;
  VkApp &operator=(const VkApp &) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  uint32_t queue_family() const { return family_; }
  // The queue family a barrier acquires dma-buf imports from: FOREIGN where
  // VK_EXT_queue_family_foreign is enabled, else EXTERNAL.
  uint32_t foreign_family() const {
    return has_foreign_ ? VK_QUEUE_FAMILY_FOREIGN_EXT : VK_QUEUE_FAMILY_EXTERNAL;
  }
  const uint8_t *uuid() const { return uuid_; }
  const std::string &name() const { return name_; }
  bool validation() const { return messenger_ != VK_NULL_HANDLE; }
  uint64_t validation_messages() const { return messages_.load(); }

  // The device as the ef.vulkan.device context carries it, queue lock included.
  GstEfVulkanDevice shared();
  // Answers efvkbridge's NEED_CONTEXT on @pipeline's bus with shared(). The
  // handler runs on the thread that posts the message, while the bridge waits
  // for the answer; the app must outlive the pipeline.
  void share_with(GstElement *pipeline);

  // Submits @cmd under the queue lock, signalling @timeline to @value.
  VkResult submit(VkCommandBuffer cmd, VkSemaphore timeline, uint64_t value);

  VkCommandBuffer allocate_commands();
  VkSemaphore create_timeline();
  // Blocks until @timeline reaches @value (or @timeout_ns passes).
  VkResult wait(VkSemaphore timeline, uint64_t value, uint64_t timeout_ns);
  // A memory type among @bits with @flags; UINT32_MAX when none.
  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const;

 private:
  VkApp() = default;
  static VkBool32 VKAPI_PTR on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                       VkDebugUtilsMessageTypeFlagsEXT types,
                                       const VkDebugUtilsMessengerCallbackDataEXT *data,
                                       void *user);
  static GstBusSyncReply on_bus(GstBus *bus, GstMessage *message, gpointer user);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t family_ = 0;
  bool has_foreign_ = false;
  uint8_t uuid_[16] = {};
  std::string name_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  GMutex queue_lock_;
  std::atomic<uint64_t> messages_{0};
};

}  // namespace ef::examples
