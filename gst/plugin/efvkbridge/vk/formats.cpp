// SPDX-License-Identifier: LGPL-2.1-or-later
#include "vk/formats.hpp"

namespace ef::vk {

namespace {

constexpr PlaneFormat kRgba{VK_FORMAT_R8G8B8A8_UNORM, 4, ef::PlaneFormat::Rgba8};
constexpr PlaneFormat kBgra{VK_FORMAT_B8G8R8A8_UNORM, 4, ef::PlaneFormat::Rgba8};
constexpr PlaneFormat kR8{VK_FORMAT_R8_UNORM, 1, ef::PlaneFormat::R8};
constexpr PlaneFormat kRg8{VK_FORMAT_R8G8_UNORM, 2, ef::PlaneFormat::Rg8};

}  // namespace

std::optional<FormatLayout> format_layout(GstVideoFormat format) {
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
      return FormatLayout{ef::PixelFormat::Rgba8, 1, {kRgba}};
    case GST_VIDEO_FORMAT_RGBx:
      return FormatLayout{ef::PixelFormat::Rgbx8, 1, {kRgba}};
    case GST_VIDEO_FORMAT_BGRA:
      return FormatLayout{ef::PixelFormat::Bgra8, 1, {kBgra}};
    case GST_VIDEO_FORMAT_BGRx:
      return FormatLayout{ef::PixelFormat::Bgrx8, 1, {kBgra}};
    case GST_VIDEO_FORMAT_GRAY8:
      return FormatLayout{ef::PixelFormat::Gray8, 1, {kR8}};
    case GST_VIDEO_FORMAT_NV12:
      return FormatLayout{ef::PixelFormat::Nv12, 2, {kR8, kRg8}};
    default:
      return std::nullopt;
  }
}

VkExtent2D plane_extent(const GstVideoInfo &info, uint32_t plane) {
  const GstVideoFormatInfo *f = info.finfo;
  return {uint32_t(GST_VIDEO_FORMAT_INFO_SCALE_WIDTH(f, plane, GST_VIDEO_INFO_WIDTH(&info))),
          uint32_t(GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT(f, plane, GST_VIDEO_INFO_HEIGHT(&info)))};
}

}  // namespace ef::vk
