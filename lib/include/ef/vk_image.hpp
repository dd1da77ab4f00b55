// SPDX-License-Identifier: LGPL-2.1-or-later
// ef::VkImage: a borrowed Vulkan image and its device parentage, the
// specification's VkImage with its slot-release gate.
// Nothing here destroys the handle: the caller, or the keep-alive anchor it
// passes, keeps the image, its memory and its device alive while any copy of
// this value is reachable. Copies share the keep-alive.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "ef/keep_alive.hpp"
#include "ef/result.hpp"
#include "ef/slot_release.hpp"

namespace ef {

// Pinned values: they cross the C ABI as uint32_t (EF_PIXEL_FORMAT_*).
enum class PixelFormat : uint32_t {
  Rgba8 = 1,
  Bgra8 = 2,
  Rgbx8 = 3,
  Bgrx8 = 4,
  Rgb8 = 5,
  Gray8 = 6,
  Nv12 = 7,
  I420 = 8,
  Yuyv = 9,
};
inline constexpr uint32_t kPixelFormatMax = 9;

// The storage primitive of one plane, for single-channel intermediates that
// fit no PixelFormat (EF_PLANE_FORMAT_*).
enum class PlaneFormat : uint32_t {
  R8 = 1,
  Rg8 = 2,
  Rgba8 = 3,
  R16 = 4,
};
inline constexpr uint32_t kPlaneFormatMax = 4;

using DeviceUuid = std::array<uint8_t, 16>;

class VkImage {
 public:
  // EINVAL ("null handle") for image == 0. device/instance/phys_dev may be
  // null, meaning "trusted import" (no adapter check). row_pitch is the plane-0
  // pitch of a LINEAR image, 0 for OPTIMAL tiling.
  static Result<VkImage> try_from_raw(uint64_t image, void *device, void *instance, void *phys_dev,
                                      std::optional<DeviceUuid> uuid, uint32_t row_pitch,
                                      std::optional<KeepAlive> keep_alive);

  VkImage with_plane_format(PlaneFormat plane_format) const;
  VkImage with_acquire_release(SlotRelease release) const;
  VkImage with_dimensions(uint32_t width, uint32_t height) const;
  VkImage with_format(PixelFormat format) const;

  uint64_t image() const { return image_; }
  void *device() const { return device_; }
  void *instance() const { return instance_; }
  void *phys_dev() const { return phys_dev_; }
  std::optional<DeviceUuid> uuid() const { return uuid_; }
  uint32_t row_pitch() const { return row_pitch_; }
  const std::optional<KeepAlive> &keep_alive() const { return keep_alive_; }
  const std::optional<SlotRelease> &acquire_release() const { return acquire_release_; }
  uint32_t width() const { return width_; }    // 0 when unset
  uint32_t height() const { return height_; }  // 0 when unset
  std::optional<PixelFormat> format() const { return format_; }
  std::optional<PlaneFormat> plane_format() const { return plane_format_; }

 private:
  VkImage() = default;

  uint64_t image_ = 0;
  void *device_ = nullptr;
  void *instance_ = nullptr;
  void *phys_dev_ = nullptr;
  std::optional<DeviceUuid> uuid_;
  uint32_t row_pitch_ = 0;
  std::optional<KeepAlive> keep_alive_;
  std::optional<SlotRelease> acquire_release_;
  uint32_t width_ = 0;
  uint32_t height_ = 0;
  std::optional<PixelFormat> format_;
  std::optional<PlaneFormat> plane_format_;
};

// The C ABI's handle (ef.h) for a copy of `image`: free it with
// ef_vk_image_free(). C++ code that fills a GstEfVkImageMeta uses this.
EfVkImage *vk_image_to_c(VkImage image);
// The wrapper behind a C handle; nullptr for nullptr.
const VkImage *vk_image_from_c(const EfVkImage *image);

}  // namespace ef
