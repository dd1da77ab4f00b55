// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_pattern.hpp"

namespace ef::examples {

namespace {

uint32_t plane_width_bytes(const GstVideoFrame *frame, guint p) {
  return uint32_t(GST_VIDEO_FRAME_COMP_WIDTH(frame, p == 0 ? 0 : 1)) *
         uint32_t(GST_VIDEO_FRAME_COMP_PSTRIDE(frame, p == 0 ? 0 : 1));
}

uint32_t plane_components(const GstVideoFrame *frame, guint p) {
  return uint32_t(GST_VIDEO_FRAME_COMP_PSTRIDE(frame, p == 0 ? 0 : 1));
}

uint32_t plane_height(const GstVideoFrame *frame, guint p) {
  return uint32_t(GST_VIDEO_FRAME_COMP_HEIGHT(frame, p == 0 ? 0 : 1));
}

}  // namespace

void paint_frame(GstVideoFrame *frame, uint64_t n) {
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame); ++p) {
    auto *data = static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(frame, p));
    const size_t stride = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(frame, p));
    for (uint32_t y = 0; y < plane_height(frame, p); ++y)
      for (uint32_t b = 0; b < plane_width_bytes(frame, p); ++b)
        data[y * stride + b] = uint8_t(b * 3 + y * 5 + n * 7 + p * 101);
  }
}

uint32_t cpu_checksum(const uint8_t *data, size_t stride, uint32_t width, uint32_t height,
                      uint32_t components) {
  uint32_t sum = 0;  // wraps, as the shader's uint does
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x)
      for (uint32_t c = 0; c < components; ++c)
        sum +=
            data[y * stride + x * components + c] * (1u + ((x * components + c + y * 31u) & 255u));
  return sum;
}

PlaneSums frame_checksums(const GstVideoFrame *frame) {
  PlaneSums sums{};
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame); ++p)
    sums[p] = cpu_checksum(static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(frame, p)),
                           size_t(GST_VIDEO_FRAME_PLANE_STRIDE(frame, p)),
                           uint32_t(GST_VIDEO_FRAME_COMP_WIDTH(frame, p == 0 ? 0 : 1)),
                           plane_height(frame, p), plane_components(frame, p));
  return sums;
}

}  // namespace ef::examples
