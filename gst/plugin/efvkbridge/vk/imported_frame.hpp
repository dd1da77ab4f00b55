// SPDX-License-Identifier: LGPL-2.1-or-later
// An input frame's planes as VkImages over its own bytes (into Vulkan): each
// memory the planes lie in is imported once (ImportedMemory), each plane is
// a LINEAR image bound at its offset. Vulkan without DRM modifiers lets the
// driver choose a LINEAR image's pitch, so the image is made stride / texel
// size wide and the driver's pitch checked against the frame's stride: the
// frame's width is a sub-rectangle of it (stamped as the dimensions). A stride
// the driver cannot match is ENOTSUP, and the caller copies.
//
// One entry of the bridge's ImportCache; it also owns the slot gate that
// frames served from it carry.
#pragma once

#include <gst/gst.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <vector>

#include "common/frame_layout.hpp"
#include "ef/slot_release.hpp"
#include "ef/vk_image.hpp"
#include "vk/formats.hpp"
#include "vk/memory_import.hpp"

namespace ef::vk {

struct PlaneImage {
  ::VkImage image = VK_NULL_HANDLE;
  VkExtent2D extent{};     // the frame's texels in this plane
  uint32_t row_pitch = 0;  // bytes, == the frame's stride
};

class ImportedFrame {
 public:
  ImportedFrame(ImportedFrame &&other) noexcept;
  ImportedFrame(const ImportedFrame &) = delete;
  ~ImportedFrame();

  // Imports the fd memories of `buffer` and makes one image per plane, in
  // VK_IMAGE_LAYOUT_GENERAL (one transition, waited for).
  static Result<ImportedFrame> create(std::shared_ptr<Device> device, GstBuffer *buffer,
                                      const gst::FrameLayout &layout, const FormatLayout &format,
                                      uint64_t timeout_ns);

  const std::vector<PlaneImage> &planes() const { return planes_; }
  ImportPath path() const { return path_; }
  // The gate of this buffer's slot, and the use count frames are stamped with.
  SlotRelease next_use() const;

 private:
  ImportedFrame() = default;
  std::shared_ptr<Device> device_;
  std::vector<ImportedMemory> memories_;
  std::vector<PlaneImage> planes_;
  ImportPath path_ = ImportPath::DmaBuf;
  std::shared_ptr<SlotGate> gate_ = std::make_shared<SlotGate>();
  mutable std::atomic<uint64_t> uses_{0};
};

// Records a GENERAL-layout transition of `images` from `old_layout`.
void record_to_general(VkCommandBuffer cmd, const std::vector<::VkImage> &images,
                       VkImageLayout old_layout);

}  // namespace ef::vk
