// SPDX-License-Identifier: LGPL-2.1-or-later
// Out of Vulkan: an application's images copied by the GPU into fd-backed
// frames. The destination fd is imported once as a VkBuffer (cached by its
// identity like any import), so the copy the GPU makes is the only one; where
// it cannot be imported, the GPU copies into a host-visible staging buffer and
// the CPU copies on (counted).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <memory>
#include <vector>

#include "vk/memory_import.hpp"

namespace ef::vk {

// A VkBuffer over memory: imported fd memory, or host-visible staging memory.
class TargetBuffer {
 public:
  TargetBuffer(TargetBuffer &&other) noexcept;
  TargetBuffer(const TargetBuffer &) = delete;
  ~TargetBuffer();

  static Result<TargetBuffer> import_fd(std::shared_ptr<Device> device, int fd);
  static Result<TargetBuffer> staging(std::shared_ptr<Device> device, VkDeviceSize size);

  VkBuffer buffer() const { return buffer_; }
  const guint8 *mapped() const { return mapped_; }  // staging only

 private:
  TargetBuffer() = default;
  Result<void> make_buffer(VkDeviceSize size, VkExternalMemoryHandleTypeFlags handle_types);
  std::shared_ptr<Device> device_;
  std::optional<ImportedMemory> imported_;
  VkDeviceMemory own_memory_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  guint8 *mapped_ = nullptr;
};

struct SourcePlane {
  ::VkImage image;
  VkExtent2D extent;
  uint32_t bytes_per_texel;
};

struct TargetPlane {
  VkDeviceSize offset;
  uint32_t stride;  // bytes; a multiple of the texel size
};

// Records: make the application's earlier writes to the images visible, copy
// each plane into `target` at its offset and stride, make the copy visible to
// the host.
void record_download(VkCommandBuffer cmd, const std::vector<SourcePlane> &sources,
                     const std::vector<TargetPlane> &targets, VkBuffer target);

}  // namespace ef::vk
