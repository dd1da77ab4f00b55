// SPDX-License-Identifier: LGPL-2.1-or-later
#include "drm_fourcc.hpp"

namespace ef::gst {

namespace {
constexpr uint32_t fourcc(char a, char b, char c, char d) {
  return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 |
         uint32_t(uint8_t(d)) << 24;
}
}  // namespace

uint32_t drm_fourcc_from_video_format(GstVideoFormat format) {
  // DRM names little-endian packed words, GStreamer names bytes in memory
  // order: GStreamer's RGBA is DRM's ABGR8888 ('AB24').
  switch (format) {
    case GST_VIDEO_FORMAT_RGBA:
      return fourcc('A', 'B', '2', '4');
    case GST_VIDEO_FORMAT_BGRA:
      return fourcc('A', 'R', '2', '4');
    case GST_VIDEO_FORMAT_RGBx:
      return fourcc('X', 'B', '2', '4');
    case GST_VIDEO_FORMAT_BGRx:
      return fourcc('X', 'R', '2', '4');
    case GST_VIDEO_FORMAT_RGB:
      return fourcc('B', 'G', '2', '4');
    case GST_VIDEO_FORMAT_BGR:
      return fourcc('R', 'G', '2', '4');
    case GST_VIDEO_FORMAT_GRAY8:
      return fourcc('R', '8', ' ', ' ');
    case GST_VIDEO_FORMAT_NV12:
      return fourcc('N', 'V', '1', '2');
    case GST_VIDEO_FORMAT_I420:
      return fourcc('Y', 'U', '1', '2');
    case GST_VIDEO_FORMAT_YUY2:
      return fourcc('Y', 'U', 'Y', 'V');
    case GST_VIDEO_FORMAT_UYVY:
      return fourcc('U', 'Y', 'V', 'Y');
    default:
      return 0;
  }
}

}  // namespace ef::gst
