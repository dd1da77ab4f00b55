// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/memory_import.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace ef::vk {

const char *import_path_name(ImportPath path) {
  return path == ImportPath::DmaBuf ? "dma-buf" : "host-pointer";
}

ImportedMemory::ImportedMemory(ImportedMemory &&other) noexcept
    : device_(std::move(other.device_)),
      memory_(std::exchange(other.memory_, VK_NULL_HANDLE)),
      size_(other.size_),
      path_(other.path_),
      type_index_(other.type_index_),
      mapping_(std::exchange(other.mapping_, nullptr)) {}

ImportedMemory::~ImportedMemory() {
  if (memory_)
    vkFreeMemory(device_->device(), memory_, nullptr);
  if (mapping_)
    munmap(mapping_, size_);  // only after vkFreeMemory: the driver may pin the pages
}

VkExternalMemoryHandleTypeFlagBits ImportedMemory::handle_type() const {
  return path_ == ImportPath::DmaBuf ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                                     : VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
}

Result<ImportedMemory> ImportedMemory::import_fd(std::shared_ptr<Device> device, int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0)
    return Error{errno, std::string("fstat: ") + std::strerror(errno)};
  if (st.st_size <= 0)
    return Error{EINVAL, "the fd has no bytes (size 0): nothing to import"};
  ImportedMemory m;
  m.device_ = device;
  m.size_ = VkDeviceSize(st.st_size);

  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = m.size_;
  if (uint32_t bits = device->dma_buf_memory_types(fd)) {
    auto type = device->memory_type(bits, 0);
    int dup_fd = dup(fd);
    if (dup_fd < 0)
      return Error{errno, std::string("dup: ") + std::strerror(errno)};
    VkImportMemoryFdInfoKHR import{};
    import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
    import.fd = dup_fd;  // the driver owns it on success
    alloc.pNext = &import;
    alloc.memoryTypeIndex = *type;
    if (VkResult r = vkAllocateMemory(device->device(), &alloc, nullptr, &m.memory_);
        r != VK_SUCCESS) {
      close(dup_fd);
      return vk_error("dma-buf import (vkAllocateMemory)", r);
    }
    m.path_ = ImportPath::DmaBuf;
    m.type_index_ = *type;
    return m;
  }
  if (auto aligned = host_aligned(*device, nullptr, m.size_); !aligned)
    return aligned.error();
  void *map = mmap(nullptr, m.size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED)
    return Error{ENOTSUP,
                 std::string("mapping the fd for host-pointer import: ") + std::strerror(errno)};
  m.mapping_ = map;
  if (auto imported = m.import_pointer(map); !imported)
    return imported.error();
  return m;
}

Result<void> ImportedMemory::host_aligned(const Device &device, const void *base,
                                          VkDeviceSize size) {
  if (!device.host_import())
    return Error{ENOTSUP, "the device imports neither dma-bufs nor host pointers"};
  const VkDeviceSize align = device.host_import_alignment();
  if (size % align != 0 || reinterpret_cast<uintptr_t>(base) % align != 0)
    return Error{ENOTSUP, "host-pointer import needs an address and a size that are multiples of " +
                              std::to_string(align) + " bytes; the memory has " +
                              std::to_string(size) + " bytes"};
  return {};
}

Result<void> ImportedMemory::import_pointer(void *base) {
  uint32_t bits = device_->host_pointer_memory_types(base);
  auto type = bits ? device_->memory_type(bits, 0) : std::nullopt;
  if (!type)
    return Error{ENOTSUP, "the device offers no memory type for this host pointer"};
  VkImportMemoryHostPointerInfoEXT import{};
  import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = base;
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.pNext = &import;
  alloc.allocationSize = size_;
  alloc.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(device_->device(), &alloc, nullptr, &memory_); r != VK_SUCCESS)
    return vk_error("host-pointer import (vkAllocateMemory)", r);
  path_ = ImportPath::HostPointer;
  type_index_ = *type;
  return {};
}

Result<ImportedMemory> ImportedMemory::import_host(std::shared_ptr<Device> device, void *base,
                                                   VkDeviceSize size) {
  if (auto aligned = host_aligned(*device, base, size); !aligned)
    return aligned.error();
  ImportedMemory m;
  m.device_ = device;
  m.size_ = size;
  if (auto imported = m.import_pointer(base); !imported)
    return imported.error();
  return m;
}

}  // namespace ef::vk
