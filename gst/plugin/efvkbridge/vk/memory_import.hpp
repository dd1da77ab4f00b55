// SPDX-License-Identifier: LGPL-2.1-or-later
// One fd's bytes as VkDeviceMemory, without a copy: as a dma-buf where the
// device has VK_EXT_external_memory_dma_buf (lavapipe takes memfds so), else
// as a host allocation (VK_EXT_external_memory_host) of a mapping of the fd,
// where the fd's size is a multiple of the device's import alignment (the
// NVIDIA driver's only way to take a memfd). ENOTSUP when neither applies:
// the caller copies instead.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>

#include "ef/result.hpp"
#include "vk/device.hpp"

namespace ef::vk {

enum class ImportPath { DmaBuf, HostPointer };
const char *import_path_name(ImportPath path);

class ImportedMemory {
 public:
  ImportedMemory(ImportedMemory &&other) noexcept;
  ImportedMemory &operator=(ImportedMemory &&) = delete;
  ImportedMemory(const ImportedMemory &) = delete;
  ~ImportedMemory();  // frees the memory before unmapping

  static Result<ImportedMemory> import_fd(std::shared_ptr<Device> device, int fd);
  // System memory as a host allocation: `base` and `size` must be multiples
  // of the device's import alignment (ENOTSUP otherwise). The caller keeps
  // the allocation alive (the cache entry's retainer holds the GstMemory).
  static Result<ImportedMemory> import_host(std::shared_ptr<Device> device, void *base,
                                            VkDeviceSize size);

  VkDeviceMemory memory() const { return memory_; }
  VkDeviceSize size() const { return size_; }
  ImportPath path() const { return path_; }
  uint32_t type_index() const { return type_index_; }
  VkExternalMemoryHandleTypeFlagBits handle_type() const;

 private:
  ImportedMemory() = default;
  static Result<void> host_aligned(const Device &device, const void *base, VkDeviceSize size);
  Result<void> import_pointer(void *base);
  std::shared_ptr<Device> device_;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  ImportPath path_ = ImportPath::DmaBuf;
  uint32_t type_index_ = 0;
  void *mapping_ = nullptr;  // HostPointer only
};

}  // namespace ef::vk
