// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/vk_image.hpp"

#include <cerrno>

namespace ef {

Result<VkImage> VkImage::try_from_raw(uint64_t image, void *device, void *instance, void *phys_dev,
                                      std::optional<DeviceUuid> uuid, uint32_t row_pitch,
                                      std::optional<KeepAlive> keep_alive) {
  if (image == 0)
    return Error{EINVAL, "null handle: VkImage 0 cannot be wrapped"};
  VkImage v;
  v.image_ = image;
  v.device_ = device;
  v.instance_ = instance;
  v.phys_dev_ = phys_dev;
  v.uuid_ = uuid;
  v.row_pitch_ = row_pitch;
  v.keep_alive_ = std::move(keep_alive);
  return v;
}

VkImage VkImage::with_plane_format(PlaneFormat plane_format) const {
  VkImage v = *this;
  v.plane_format_ = plane_format;
  return v;
}

VkImage VkImage::with_acquire_release(SlotRelease release) const {
  VkImage v = *this;
  v.acquire_release_ = std::move(release);
  return v;
}

VkImage VkImage::with_dimensions(uint32_t width, uint32_t height) const {
  VkImage v = *this;
  v.width_ = width;
  v.height_ = height;
  return v;
}

VkImage VkImage::with_format(PixelFormat format) const {
  VkImage v = *this;
  v.format_ = format;
  return v;
}

}  // namespace ef
