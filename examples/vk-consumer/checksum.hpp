// SPDX-License-Identifier: LGPL-2.1-or-later
// The consumer's GPU work on a frame: checksum.comp over each plane's image,
// one dispatch per plane, in one submission that signals a timeline value.
#pragma once

#include <gst/ef/gstef.h>

#include <memory>
#include <string>
#include <vector>

#include "frame_pattern.hpp"
#include "vk_app.hpp"

namespace ef::examples {

class GpuChecksum {
 public:
  static std::unique_ptr<GpuChecksum> create(VkApp &app, std::string *why);
  ~GpuChecksum();

  // Submits the checksum of @meta's planes, signalling timeline() to @value.
  // The frame must stay alive (its gate unarmed) until that value is reached.
  bool submit(const GstEfVkImageMeta &meta, uint64_t value, std::string *why);
  // After timeline() reached the value of the last submit(): its sums.
  PlaneSums sums() const;
  // Drops what the last submit() made for its frame (image views).
  void finish_frame();

  VkSemaphore timeline() const { return timeline_; }

 private:
  explicit GpuChecksum(VkApp &app) : app_(app) {}

  VkApp &app_;
  VkShaderModule shader_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  VkDescriptorSet sets_[GST_EF_VK_IMAGE_META_MAX_PLANES] = {};
  VkSampler sampler_ = VK_NULL_HANDLE;
  VkBuffer sums_ = VK_NULL_HANDLE;
  VkDeviceMemory sums_memory_ = VK_NULL_HANDLE;
  const uint32_t *mapped_ = nullptr;
  VkCommandBuffer commands_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::vector<VkImageView> views_;
  guint n_planes_ = 0;
};

}  // namespace ef::examples
