// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/download.hpp"

#include <gst/gst.h>

#include <utility>

namespace ef::vk {

namespace {
constexpr VkBufferUsageFlags kTargetUsage =
    VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
}  // namespace

TargetBuffer::TargetBuffer(TargetBuffer &&other) noexcept
    : device_(std::move(other.device_)),
      imported_(std::move(other.imported_)),
      own_memory_(std::exchange(other.own_memory_, VK_NULL_HANDLE)),
      buffer_(std::exchange(other.buffer_, VK_NULL_HANDLE)),
      mapped_(std::exchange(other.mapped_, nullptr)) {
  other.imported_.reset();
}

TargetBuffer::~TargetBuffer() {
  if (!device_)
    return;
  if (buffer_)
    vkDestroyBuffer(device_->device(), buffer_, nullptr);
  if (own_memory_) {
    vkUnmapMemory(device_->device(), own_memory_);
    vkFreeMemory(device_->device(), own_memory_, nullptr);
  }
}

Result<void> TargetBuffer::make_buffer(VkDeviceSize size,
                                       VkExternalMemoryHandleTypeFlags handle_types) {
  VkExternalMemoryBufferCreateInfo external{};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = handle_types;
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.pNext = handle_types ? &external : nullptr;
  bci.size = size;
  bci.usage = kTargetUsage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(device_->device(), &bci, nullptr, &buffer_); r != VK_SUCCESS)
    return vk_error("vkCreateBuffer", r);
  return {};
}

Result<TargetBuffer> TargetBuffer::import_fd(std::shared_ptr<Device> device, int fd) {
  auto memory = ImportedMemory::import_fd(device, fd);
  if (!memory)
    return memory.error();
  if (!device->buffer_importable(kTargetUsage, memory->handle_type()))
    return Error{ENOTSUP, std::string("the driver cannot bind ") +
                              import_path_name(memory->path()) + " memory to a buffer"};
  TargetBuffer t;
  t.device_ = device;
  if (auto made = t.make_buffer(memory->size(), memory->handle_type()); !made)
    return made.error();
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device->device(), t.buffer_, &req);
  if (!(req.memoryTypeBits & (1u << memory->type_index())) || req.size > memory->size())
    return Error{ENOTSUP, "the imported memory does not suit a buffer of its size"};
  if (VkResult r = vkBindBufferMemory(device->device(), t.buffer_, memory->memory(), 0);
      r != VK_SUCCESS)
    return vk_error("vkBindBufferMemory", r);
  t.imported_.emplace(std::move(memory).value());
  return t;
}

Result<TargetBuffer> TargetBuffer::staging(std::shared_ptr<Device> device, VkDeviceSize size) {
  TargetBuffer t;
  t.device_ = device;
  if (auto made = t.make_buffer(size, 0); !made)
    return made.error();
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device->device(), t.buffer_, &req);
  auto type = device->memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (!type)
    return Error{ENOTSUP, "no host-visible coherent memory type suits the staging buffer"};
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = *type;
  if (VkResult r = vkAllocateMemory(device->device(), &alloc, nullptr, &t.own_memory_);
      r != VK_SUCCESS)
    return vk_error("vkAllocateMemory (staging buffer)", r);
  if (VkResult r = vkBindBufferMemory(device->device(), t.buffer_, t.own_memory_, 0);
      r != VK_SUCCESS)
    return vk_error("vkBindBufferMemory (staging buffer)", r);
  void *mapped = nullptr;
  if (VkResult r = vkMapMemory(device->device(), t.own_memory_, 0, VK_WHOLE_SIZE, 0, &mapped);
      r != VK_SUCCESS)
    return vk_error("vkMapMemory (staging buffer)", r);
  t.mapped_ = static_cast<guint8 *>(mapped);
  return t;
}

void record_download(VkCommandBuffer cmd, const std::vector<SourcePlane> &sources,
                     const std::vector<TargetPlane> &targets, VkBuffer target) {
  // The application submitted its rendering to this queue before pushing
  // the frame: submission order plus this barrier orders the copy after it.
  VkMemoryBarrier before{};
  before.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  before.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                       1, &before, 0, nullptr, 0, nullptr);
  for (size_t p = 0; p < sources.size(); ++p) {
    VkBufferImageCopy region{};
    region.bufferOffset = targets[p].offset;
    region.bufferRowLength = targets[p].stride / sources[p].bytes_per_texel;
    region.bufferImageHeight = 0;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {sources[p].extent.width, sources[p].extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, sources[p].image, VK_IMAGE_LAYOUT_GENERAL, target, 1, &region);
  }
  VkMemoryBarrier after{};
  after.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &after, 0, nullptr, 0, nullptr);
}

}  // namespace ef::vk
