// SPDX-License-Identifier: LGPL-2.1-or-later
// The producer's ring of VkImages: RGBA8, TRANSFER_SRC (the bridge copies out
// of them) and TRANSFER_DST (cleared here), kept in the GENERAL layout the
// bridge expects. LINEAR tiling: OPTIMAL images work too, but the validation
// layer flags every copy out of an OPTIMAL image in GENERAL as a performance
// warning, and this example counts warnings.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vk_app.hpp"

namespace ef::examples {

// The colour frame @n is cleared to: the frame number in red and green,
// so a frame showing another frame's pixels is told apart by value.
struct Rgba {
  uint8_t r, g, b, a;
  bool operator==(const Rgba &) const = default;
};
Rgba frame_colour(uint64_t n);

class ImageRing {
 public:
  static std::unique_ptr<ImageRing> create(VkApp &app, uint32_t slots, uint32_t width,
                                           uint32_t height, std::string *why);
  ~ImageRing();  // after the pipeline let go of every image

  uint32_t slots() const { return uint32_t(slots_.size()); }
  VkImage image(uint32_t slot) const { return slots_[slot].image; }
  // The driver's row pitch of the LINEAR images, in bytes.
  uint32_t row_pitch() const { return row_pitch_; }

  // Clears @slot to frame_colour(@n) on the shared queue. The bridge submits
  // its copy to the same queue after the push, so submission order is all
  // the synchronisation the copy needs; no wait here.
  bool render(uint32_t slot, uint64_t n, std::string *why);

 private:
  explicit ImageRing(VkApp &app) : app_(app) {}
  struct Slot {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    uint64_t last_clear = 0;  // timeline value of the slot's last submission
  };
  VkApp &app_;
  std::vector<Slot> slots_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;  // signalled per submission, waited at the end
  uint64_t submitted_ = 0;
  uint32_t row_pitch_ = 0;
};

}  // namespace ef::examples
