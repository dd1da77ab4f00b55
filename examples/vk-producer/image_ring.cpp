// SPDX-License-Identifier: LGPL-2.1-or-later
#include "image_ring.hpp"

namespace ef::examples {

Rgba frame_colour(uint64_t n) {
  return {uint8_t(n), uint8_t(n >> 8), 0x5a, 0xff};
}

namespace {

void to_general(VkCommandBuffer cmd, VkImage image) {
  VkImageMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  b.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = image;
  b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &b);
}

}  // namespace

std::unique_ptr<ImageRing> ImageRing::create(VkApp &app, uint32_t slots, uint32_t width,
                                             uint32_t height, std::string *why) {
  std::unique_ptr<ImageRing> ring(new ImageRing(app));
  VkDevice dev = app.device();
  ring->timeline_ = app.create_timeline();
  for (uint32_t i = 0; i < slots; ++i) {
    Slot &s = ring->slots_.emplace_back();
    VkImageCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = VK_FORMAT_R8G8B8A8_UNORM;
    ici.extent = {width, height, 1};
    ici.mipLevels = 1;
    ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    ici.tiling = VK_IMAGE_TILING_LINEAR;
    ici.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (VkResult r = vkCreateImage(dev, &ici, nullptr, &s.image); r != VK_SUCCESS) {
      *why = "vkCreateImage failed (" + std::to_string(int(r)) + ")";
      return nullptr;
    }
    VkImageSubresource sub{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout{};
    vkGetImageSubresourceLayout(dev, s.image, &sub, &layout);
    ring->row_pitch_ = uint32_t(layout.rowPitch);
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(dev, s.image, &req);
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = app.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (mai.memoryTypeIndex == UINT32_MAX ||
        vkAllocateMemory(dev, &mai, nullptr, &s.memory) != VK_SUCCESS ||
        vkBindImageMemory(dev, s.image, s.memory, 0) != VK_SUCCESS) {
      *why = "cannot allocate the ring's image memory";
      return nullptr;
    }
    s.commands = app.allocate_commands();
    // Into GENERAL once, with the slot's first use: the bridge reads (and
    // this ring clears) the images in GENERAL from then on.
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(s.commands, &begin);
    to_general(s.commands, s.image);
    vkEndCommandBuffer(s.commands);
    if (app.submit(s.commands, ring->timeline_, ++ring->submitted_) != VK_SUCCESS ||
        app.wait(ring->timeline_, ring->submitted_, UINT64_MAX) != VK_SUCCESS) {
      *why = "cannot move the ring's images to GENERAL";
      return nullptr;
    }
  }
  return ring;
}

ImageRing::~ImageRing() {
  VkDevice dev = app_.device();
  app_.wait(timeline_, submitted_, UINT64_MAX);
  for (Slot &s : slots_) {
    vkDestroyImage(dev, s.image, nullptr);
    vkFreeMemory(dev, s.memory, nullptr);
  }
  vkDestroySemaphore(dev, timeline_, nullptr);
}

bool ImageRing::render(uint32_t slot, uint64_t n, std::string *why) {
  Slot &s = slots_[slot];
  // Normally long retired (the gate is armed after the bridge's copy, which
  // came after this slot's last clear); with --unsafe perhaps not, and a
  // pending command buffer must not be re-recorded.
  app_.wait(timeline_, s.last_clear, UINT64_MAX);
  const Rgba c = frame_colour(n);
  VkClearColorValue colour{};
  colour.float32[0] = c.r / 255.0f;
  colour.float32[1] = c.g / 255.0f;
  colour.float32[2] = c.b / 255.0f;
  colour.float32[3] = c.a / 255.0f;
  const VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkResetCommandBuffer(s.commands, 0);
  vkBeginCommandBuffer(s.commands, &begin);
  // The bridge's last copy out of this image read it: order the clear after.
  VkImageMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
  b.srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  b.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  b.oldLayout = b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  b.image = s.image;
  b.subresourceRange = range;
  vkCmdPipelineBarrier(s.commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       0, 0, nullptr, 0, nullptr, 1, &b);
  vkCmdClearColorImage(s.commands, s.image, VK_IMAGE_LAYOUT_GENERAL, &colour, 1, &range);
  vkEndCommandBuffer(s.commands);
  s.last_clear = ++submitted_;
  if (VkResult r = app_.submit(s.commands, timeline_, s.last_clear); r != VK_SUCCESS) {
    *why = "vkQueueSubmit failed (" + std::to_string(int(r)) + ")";
    return false;
  }
  return true;
}

}  // namespace ef::examples
