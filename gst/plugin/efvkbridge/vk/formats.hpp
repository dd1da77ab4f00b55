// SPDX-License-Identifier: LGPL-2.1-or-later
// How a video format is laid out as Vulkan images: one image per plane, so
// NV12 is Y as R8 and interleaved UV as RG8 (lavapipe's multi-planar images
// misreport per-plane memory requirements; two plain images bind cleanly).
#pragma once

#include <gst/video/video.h>
#include <vulkan/vulkan.h>

#include <array>
#include <optional>

#include "ef/vk_image.hpp"

namespace ef::vk {

struct PlaneFormat {
  VkFormat format;
  uint32_t bytes_per_texel;
  ef::PlaneFormat plane_format;
};

struct FormatLayout {
  ef::PixelFormat pixel_format;
  uint32_t n_planes;
  std::array<PlaneFormat, 2> planes;
};

// nullopt for a format the bridge does not carry.
std::optional<FormatLayout> format_layout(GstVideoFormat format);

// Texel size of plane p of a frame of this width and height.
VkExtent2D plane_extent(const GstVideoInfo &info, uint32_t plane);

}  // namespace ef::vk
