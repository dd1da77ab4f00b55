// SPDX-License-Identifier: LGPL-2.1-or-later
#include "checksum.hpp"

#include <cstring>

#include "checksum_spv.h"

namespace ef::examples {

namespace {

// Each plane's sum lies in its own 256-byte slot: the largest storage buffer
// offset alignment Vulkan allows.
constexpr VkDeviceSize kSlot = 256;

struct Params {
  uint32_t width, height, components, swap_rb;
};

struct PlaneView {
  VkFormat format;
  uint32_t components;
  bool swap_rb;
};

// How efvkbridge stamps the planes: packed RGB formats as one RGBA8
// image, NV12 as an R8 image (Y) and an RG8 image (UV).
bool plane_view(uint32_t pixel_format, guint plane, PlaneView *out) {
  switch (pixel_format) {
    case EF_PIXEL_FORMAT_RGBA8:
    case EF_PIXEL_FORMAT_RGBX8:
      *out = {VK_FORMAT_R8G8B8A8_UNORM, 4, false};
      return plane == 0;
    case EF_PIXEL_FORMAT_BGRA8:
    case EF_PIXEL_FORMAT_BGRX8:
      *out = {VK_FORMAT_B8G8R8A8_UNORM, 4, true};
      return plane == 0;
    case EF_PIXEL_FORMAT_GRAY8:
      *out = {VK_FORMAT_R8_UNORM, 1, false};
      return plane == 0;
    case EF_PIXEL_FORMAT_NV12:
      *out = plane == 0 ? PlaneView{VK_FORMAT_R8_UNORM, 1, false}
                        : PlaneView{VK_FORMAT_R8G8_UNORM, 2, false};
      return plane < 2;
    default:
      return false;
  }
}

}  // namespace

std::unique_ptr<GpuChecksum> GpuChecksum::create(VkApp &app, std::string *why) {
  std::unique_ptr<GpuChecksum> g(new GpuChecksum(app));
  VkDevice dev = app.device();

  VkShaderModuleCreateInfo smci{};
  smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smci.codeSize = sizeof checksum_spv;
  smci.pCode = checksum_spv;
  vkCreateShaderModule(dev, &smci, nullptr, &g->shader_);

  VkDescriptorSetLayoutBinding bindings[2] = {};
  bindings[0] = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
                 nullptr};
  bindings[1] = {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dslci{};
  dslci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  dslci.bindingCount = 2;
  dslci.pBindings = bindings;
  vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &g->set_layout_);

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Params)};
  VkPipelineLayoutCreateInfo plci{};
  plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &g->set_layout_;
  plci.pushConstantRangeCount = 1;
  plci.pPushConstantRanges = &push;
  vkCreatePipelineLayout(dev, &plci, nullptr, &g->layout_);

  VkComputePipelineCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = g->shader_;
  cpci.stage.pName = "main";
  cpci.layout = g->layout_;
  if (VkResult r = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &g->pipeline_);
      r != VK_SUCCESS) {
    *why = "vkCreateComputePipelines failed (" + std::to_string(int(r)) + ")";
    return nullptr;
  }

  VkDescriptorPoolSize sizes[2] = {
      {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, GST_EF_VK_IMAGE_META_MAX_PLANES},
      {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, GST_EF_VK_IMAGE_META_MAX_PLANES}};
  VkDescriptorPoolCreateInfo dpci{};
  dpci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  dpci.maxSets = GST_EF_VK_IMAGE_META_MAX_PLANES;
  dpci.poolSizeCount = 2;
  dpci.pPoolSizes = sizes;
  vkCreateDescriptorPool(dev, &dpci, nullptr, &g->descriptors_);
  VkDescriptorSetLayout layouts[GST_EF_VK_IMAGE_META_MAX_PLANES];
  for (auto &l : layouts)
    l = g->set_layout_;
  VkDescriptorSetAllocateInfo dsai{};
  dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  dsai.descriptorPool = g->descriptors_;
  dsai.descriptorSetCount = GST_EF_VK_IMAGE_META_MAX_PLANES;
  dsai.pSetLayouts = layouts;
  vkAllocateDescriptorSets(dev, &dsai, g->sets_);

  // texelFetch ignores filtering and addressing, but a combined sampler
  // needs a sampler.
  VkSamplerCreateInfo sci{};
  sci.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO;
  sci.magFilter = sci.minFilter = VK_FILTER_NEAREST;
  sci.addressModeU = sci.addressModeV = sci.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  vkCreateSampler(dev, &sci, nullptr, &g->sampler_);

  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = kSlot * GST_EF_VK_IMAGE_META_MAX_PLANES;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  vkCreateBuffer(dev, &bci, nullptr, &g->sums_);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev, g->sums_, &req);
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex =
      app.memory_type(req.memoryTypeBits,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (mai.memoryTypeIndex == UINT32_MAX) {
    *why = "no host-visible coherent memory for the checksums";
    return nullptr;
  }
  vkAllocateMemory(dev, &mai, nullptr, &g->sums_memory_);
  vkBindBufferMemory(dev, g->sums_, g->sums_memory_, 0);
  void *mapped = nullptr;
  vkMapMemory(dev, g->sums_memory_, 0, VK_WHOLE_SIZE, 0, &mapped);
  g->mapped_ = static_cast<const uint32_t *>(mapped);

  g->commands_ = app.allocate_commands();
  g->timeline_ = app.create_timeline();
  return g;
}

GpuChecksum::~GpuChecksum() {
  VkDevice dev = app_.device();
  vkDeviceWaitIdle(dev);
  finish_frame();
  vkDestroySemaphore(dev, timeline_, nullptr);
  vkDestroyBuffer(dev, sums_, nullptr);
  vkFreeMemory(dev, sums_memory_, nullptr);
  vkDestroySampler(dev, sampler_, nullptr);
  vkDestroyDescriptorPool(dev, descriptors_, nullptr);
  vkDestroyPipeline(dev, pipeline_, nullptr);
  vkDestroyPipelineLayout(dev, layout_, nullptr);
  vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  vkDestroyShaderModule(dev, shader_, nullptr);
}

bool GpuChecksum::submit(const GstEfVkImageMeta &meta, uint64_t value, std::string *why) {
  VkDevice dev = app_.device();
  n_planes_ = meta.n_planes;
  std::vector<VkImageMemoryBarrier> acquire;
  std::vector<Params> params;
  for (guint p = 0; p < meta.n_planes; ++p) {
    const EfVkImage *plane = meta.planes[p];
    uint64_t handle = 0;
    uint32_t pixel_format = 0;
    Params pc{};
    PlaneView view{};
    ef_vk_image_get_handle(plane, &handle);
    // The frame's size: the image itself may be wider (width = row pitch
    // in texels), its extra columns are the producer's row padding.
    ef_vk_image_get_dimensions(plane, &pc.width, &pc.height);
    if (ef_vk_image_get_format(plane, &pixel_format) != 0 || !plane_view(pixel_format, p, &view)) {
      *why = "plane " + std::to_string(p) + " has a format this example does not checksum";
      return false;
    }
    pc.components = view.components;
    pc.swap_rb = view.swap_rb;
    params.push_back(pc);

    // A view per frame: the bridge may destroy an image once its import is
    // evicted, so the application keeps nothing of it past the frame.
    VkImageViewCreateInfo ivci{};
    ivci.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    ivci.image = reinterpret_cast<VkImage>(handle);
    ivci.viewType = VK_IMAGE_VIEW_TYPE_2D;
    ivci.format = view.format;
    ivci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    VkImageView image_view = VK_NULL_HANDLE;
    if (VkResult r = vkCreateImageView(dev, &ivci, nullptr, &image_view); r != VK_SUCCESS) {
      *why = "vkCreateImageView failed (" + std::to_string(int(r)) + ")";
      return false;
    }
    views_.push_back(image_view);

    VkDescriptorImageInfo image_info{sampler_, image_view, VK_IMAGE_LAYOUT_GENERAL};
    VkDescriptorBufferInfo buffer_info{sums_, kSlot * p, sizeof(uint32_t)};
    VkWriteDescriptorSet writes[2] = {};
    writes[0].sType = writes[1].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[0].dstSet = writes[1].dstSet = sets_[p];
    writes[0].dstBinding = 0;
    writes[0].descriptorCount = 1;
    writes[0].descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    writes[0].pImageInfo = &image_info;
    writes[1].dstBinding = 1;
    writes[1].descriptorCount = 1;
    writes[1].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[1].pBufferInfo = &buffer_info;
    vkUpdateDescriptorSets(dev, 2, writes, 0, nullptr);

    // A dma-buf import (the meta says so) holds bytes the CPU wrote outside
    // Vulkan: acquire them from the foreign "queue family" that is the rest
    // of the system. Host-pointer imports and the bridge's staging copies
    // need no ownership transfer. The layout stays GENERAL.
    const bool foreign = meta.flags & GST_EF_VK_IMAGE_META_FLAG_FOREIGN;
    VkImageMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = 0;
    b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
    b.oldLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.newLayout = VK_IMAGE_LAYOUT_GENERAL;
    b.srcQueueFamilyIndex = foreign ? app_.foreign_family() : VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = foreign ? app_.queue_family() : VK_QUEUE_FAMILY_IGNORED;
    b.image = ivci.image;
    b.subresourceRange = ivci.subresourceRange;
    acquire.push_back(b);
  }

  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkResetCommandBuffer(commands_, 0);
  vkBeginCommandBuffer(commands_, &begin);
  vkCmdFillBuffer(commands_, sums_, 0, VK_WHOLE_SIZE, 0);
  VkMemoryBarrier zeroed{};
  zeroed.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  zeroed.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  zeroed.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(commands_,
                       VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &zeroed, 0, nullptr,
                       uint32_t(acquire.size()), acquire.data());
  vkCmdBindPipeline(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  for (guint p = 0; p < meta.n_planes; ++p) {
    vkCmdBindDescriptorSets(commands_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &sets_[p], 0,
                            nullptr);
    vkCmdPushConstants(commands_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Params),
                       &params[p]);
    vkCmdDispatch(commands_, (params[p].width + 15) / 16, (params[p].height + 15) / 16, 1);
  }
  VkMemoryBarrier done{};
  done.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  done.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  done.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       0, 1, &done, 0, nullptr, 0, nullptr);
  vkEndCommandBuffer(commands_);
  if (VkResult r = app_.submit(commands_, timeline_, value); r != VK_SUCCESS) {
    *why = "vkQueueSubmit failed (" + std::to_string(int(r)) + ")";
    return false;
  }
  return true;
}

PlaneSums GpuChecksum::sums() const {
  PlaneSums sums{};
  for (guint p = 0; p < n_planes_; ++p)
    sums[p] = mapped_[p * kSlot / sizeof(uint32_t)];
  return sums;
}

void GpuChecksum::finish_frame() {
  for (VkImageView v : views_)
    vkDestroyImageView(app_.device(), v, nullptr);
  views_.clear();
}

}  // namespace ef::examples
