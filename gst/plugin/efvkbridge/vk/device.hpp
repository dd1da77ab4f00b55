// SPDX-License-Identifier: LGPL-2.1-or-later
// The Vulkan device efvkbridge works on: the application's, borrowed through
// the "ef.vulkan.device" GstContext, or one of the bridge's own. Either way
// the bridge knows which import paths the device offers and submits to its
// queue under the queue lock.
#pragma once

#include <gst/ef/gstefvkimage.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ef/result.hpp"
#include "ef/vk_image.hpp"

namespace ef::vk {

struct DeviceChoice {
  int index = -1;                  // -1: the first device with a graphics/compute queue
  std::optional<DeviceUuid> uuid;  // overrides index when set
  bool validation = false;         // enable VK_LAYER_KHRONOS_validation
};

class Device {
 public:
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  // An instance and device of the bridge's own, with every import extension
  // the physical device has enabled.
  static Result<std::shared_ptr<Device>> create(const DeviceChoice &choice);
  // The application's device. It must have been created with the import
  // extensions its physical device offers (docs/VKBRIDGE.md).
  static Result<std::shared_ptr<Device>> borrow(const GstEfVulkanDevice &shared);

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  uint32_t queue_family() const { return queue_family_; }
  const DeviceUuid &uuid() const { return uuid_; }
  const std::string &name() const { return name_; }

  // Import paths: VK_EXT_external_memory_dma_buf (fd), VK_EXT_external_memory_host.
  bool dma_buf_import() const { return get_memory_fd_properties_ != nullptr && has_dma_buf_; }
  bool host_import() const { return get_host_pointer_properties_ != nullptr; }
  VkDeviceSize host_import_alignment() const { return host_alignment_; }

  // Memory type bits an fd or host pointer can be imported with (0: none).
  uint32_t dma_buf_memory_types(int fd) const;
  uint32_t host_pointer_memory_types(const void *ptr) const;
  std::optional<uint32_t> memory_type(uint32_t bits, VkMemoryPropertyFlags flags) const;
  // Whether the driver says it can bind imported memory of `handle_type` to
  // a LINEAR image of `format` with `usage`, or to a buffer with `usage`.
  // Asked before creating one: an unsupported combination is invalid usage,
  // not an error code.
  bool image_importable(VkFormat format, VkImageUsageFlags usage,
                        VkExternalMemoryHandleTypeFlagBits handle_type) const;
  bool buffer_importable(VkBufferUsageFlags usage,
                         VkExternalMemoryHandleTypeFlagBits handle_type) const;

  // Records a command buffer with `record`, submits it under the queue lock
  // and waits for it. ETIMEDOUT after timeout_ns; EIO for a Vulkan failure.
  Result<void> run_commands(const std::function<void(VkCommandBuffer)> &record,
                            uint64_t timeout_ns);

  // The device as a context for the application (own devices only).
  GstEfVulkanDevice shared() const;

  // A device of a bridge's own has a serial, unique in the process, that
  // its contexts carry (0 for a borrowed device). find() answers the device
  // while some element still uses it, nullptr once it was destroyed: a
  // context outliving its device is recognised, never dereferenced.
  uint64_t serial() const { return serial_; }
  static std::shared_ptr<Device> find(uint64_t serial);

  // Validation-layer warnings and errors seen by the bridge's own messenger.
  uint64_t validation_messages() const { return validation_messages_.load(); }

 private:
  Device() = default;
  Result<void> finish_setup();
  static VkBool32 VKAPI_PTR on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                       VkDebugUtilsMessageTypeFlagsEXT types,
                                       const VkDebugUtilsMessengerCallbackDataEXT *data,
                                       void *user);

  bool owned_ = false;
  uint64_t serial_ = 0;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t queue_index_ = 0;
  DeviceUuid uuid_{};
  std::string name_;
  VkPhysicalDeviceMemoryProperties memory_{};
  bool has_dma_buf_ = false;
  VkDeviceSize host_alignment_ = 4096;
  PFN_vkGetMemoryFdPropertiesKHR get_memory_fd_properties_ = nullptr;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties_ = nullptr;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::atomic<uint64_t> validation_messages_{0};

  // Submits: the application's lock when it gave one, else ours.
  GMutex *queue_lock_ = nullptr;
  GMutex own_lock_;
  std::mutex commands_mutex_;  // one recording at a time
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and friends, for messages.
const char *result_text(VkResult r);
Error vk_error(const std::string &what, VkResult r);

// 32 hex digits of a device UUID, as the device-uuid property reads.
std::string device_uuid_text(const DeviceUuid &uuid);

}  // namespace ef::vk
