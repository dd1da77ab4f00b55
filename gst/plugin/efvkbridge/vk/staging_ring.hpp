// SPDX-License-Identifier: LGPL-2.1-or-later
// The last resort into Vulkan: frames that cannot be imported (system
// memory, a stride the driver cannot match, a device without import
// extensions) are copied into a ring of pooled LINEAR images in host-visible
// memory. Each slot has a slot-release gate (ef::SlotRing): a slot is
// rewritten only after the application armed the gate of its last frame, or
// after the release timeout (the caller warns).
#pragma once

#include <gst/video/video.h>

#include <chrono>
#include <memory>
#include <vector>

#include "ef/slot_release.hpp"
#include "vk/imported_frame.hpp"

namespace ef::vk {

class StagingRing : public std::enable_shared_from_this<StagingRing> {
 public:
  ~StagingRing();

  static Result<std::shared_ptr<StagingRing>> create(std::shared_ptr<Device> device,
                                                     const GstVideoInfo &info,
                                                     const FormatLayout &format, uint32_t slots,
                                                     uint64_t timeout_ns);

  struct Use {
    const std::vector<PlaneImage> *planes;
    SlotRelease release;
    std::shared_ptr<const void> anchor;  // keeps the ring's images alive
    bool timed_out;                      // the slot was reused without a release
    uint32_t slot;
  };
  // Copies `frame` into the next slot once that slot is released.
  Result<Use> copy_in(const GstVideoFrame &frame, std::chrono::nanoseconds timeout);

 private:
  struct Slot {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    guint8 *mapped = nullptr;
    std::vector<PlaneImage> planes;
    std::vector<VkDeviceSize> offsets;
    std::optional<SlotRelease> last;  // the use handed out last
  };
  StagingRing(std::shared_ptr<Device> device, uint32_t slots) : device_(device), ring_(slots) {}

  std::shared_ptr<Device> device_;
  std::vector<Slot> slots_;
  SlotRing ring_;
  uint32_t next_ = 0;
};

}  // namespace ef::vk
