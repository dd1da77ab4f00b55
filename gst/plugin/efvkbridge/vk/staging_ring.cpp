// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/staging_ring.hpp"

#include <cstring>

namespace ef::vk {

StagingRing::~StagingRing() {
  VkDevice dev = device_->device();
  for (Slot &s : slots_) {
    for (PlaneImage &p : s.planes)
      if (p.image)
        vkDestroyImage(dev, p.image, nullptr);
    if (s.memory) {
      vkUnmapMemory(dev, s.memory);
      vkFreeMemory(dev, s.memory, nullptr);
    }
  }
}

Result<std::shared_ptr<StagingRing>> StagingRing::create(std::shared_ptr<Device> device,
                                                         const GstVideoInfo &info,
                                                         const FormatLayout &format, uint32_t slots,
                                                         uint64_t timeout_ns) {
  std::shared_ptr<StagingRing> ring(new StagingRing(device, slots));
  VkDevice dev = device->device();
  std::vector<::VkImage> all;
  for (uint32_t i = 0; i < slots; ++i) {
    Slot &slot = ring->slots_.emplace_back();
    std::vector<VkMemoryRequirements> reqs;
    VkDeviceSize size = 0;
    uint32_t bits = ~0u;
    for (uint32_t p = 0; p < format.n_planes; ++p) {
      PlaneImage plane;
      plane.extent = plane_extent(info, p);
      VkImageCreateInfo ici{};
      ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
      ici.imageType = VK_IMAGE_TYPE_2D;
      ici.format = format.planes[p].format;
      ici.extent = {plane.extent.width, plane.extent.height, 1};
      ici.mipLevels = 1;
      ici.arrayLayers = 1;
      ici.samples = VK_SAMPLE_COUNT_1_BIT;
      ici.tiling = VK_IMAGE_TILING_LINEAR;
      ici.usage =
          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
      ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      if (VkResult r = vkCreateImage(dev, &ici, nullptr, &plane.image); r != VK_SUCCESS)
        return vk_error("vkCreateImage (staging)", r);
      VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
      VkSubresourceLayout sl{};
      vkGetImageSubresourceLayout(dev, plane.image, &sub, &sl);
      plane.row_pitch = uint32_t(sl.rowPitch);
      VkMemoryRequirements req{};
      vkGetImageMemoryRequirements(dev, plane.image, &req);
      size = (size + req.alignment - 1) / req.alignment * req.alignment;
      slot.offsets.push_back(size + sl.offset);
      reqs.push_back(req);
      size += req.size;
      bits &= req.memoryTypeBits;
      slot.planes.push_back(plane);
      all.push_back(plane.image);
    }
    auto type = device->memory_type(
        bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (!type)
      return Error{ENOTSUP, "no host-visible coherent memory type suits the staging images"};
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = size;
    alloc.memoryTypeIndex = *type;
    if (VkResult r = vkAllocateMemory(dev, &alloc, nullptr, &slot.memory); r != VK_SUCCESS)
      return vk_error("vkAllocateMemory (staging)", r);
    void *mapped = nullptr;
    if (VkResult r = vkMapMemory(dev, slot.memory, 0, VK_WHOLE_SIZE, 0, &mapped); r != VK_SUCCESS)
      return vk_error("vkMapMemory (staging)", r);
    slot.mapped = static_cast<guint8 *>(mapped);
    VkDeviceSize at = 0;
    for (uint32_t p = 0; p < format.n_planes; ++p) {
      at = (at + reqs[p].alignment - 1) / reqs[p].alignment * reqs[p].alignment;
      if (VkResult r = vkBindImageMemory(dev, slot.planes[p].image, slot.memory, at);
          r != VK_SUCCESS)
        return vk_error("vkBindImageMemory (staging)", r);
      at += reqs[p].size;
    }
  }
  auto ran = device->run_commands(
      [&](VkCommandBuffer cmd) { record_to_general(cmd, all, VK_IMAGE_LAYOUT_UNDEFINED); },
      timeout_ns);
  if (!ran)
    return ran.error();
  return ring;
}

Result<StagingRing::Use> StagingRing::copy_in(const GstVideoFrame &frame,
                                              std::chrono::nanoseconds timeout) {
  const uint32_t index = next_;
  next_ = (next_ + 1) % ring_.size();
  Slot &slot = slots_[index];
  bool timed_out = false;
  auto release = ring_.acquire(index, timeout);
  if (!release) {
    // Never a freeze: the application did not arm the slot's last frame in
    // time; it is released on its behalf (the caller warns).
    timed_out = true;
    if (slot.last)
      slot.last->arm();
    release = ring_.acquire(index, std::chrono::nanoseconds(0));
    if (!release)
      return release.error();
  }
  slot.last = *release;
  for (size_t p = 0; p < slot.planes.size(); ++p) {
    const PlaneImage &plane = slot.planes[p];
    const auto *src = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
    const size_t src_stride = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
    const size_t row =
        size_t(GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, p == 0 ? 0 : 1)) * plane.extent.width;
    guint8 *dst = slot.mapped + slot.offsets[p];
    for (uint32_t y = 0; y < plane.extent.height; ++y)
      std::memcpy(dst + size_t(y) * plane.row_pitch, src + y * src_stride, row);
  }
  return Use{&slot.planes, *release, shared_from_this(), timed_out, index};
}

}  // namespace ef::vk
