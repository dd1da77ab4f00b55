// SPDX-License-Identifier: LGPL-2.1-or-later
// What the consumer's producer half writes into each frame, and the checksum
// both the CPU (here) and the GPU (checksum.comp) compute over it.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstdint>

namespace ef::examples {

// One checksum per plane (NV12 has two).
using PlaneSums = std::array<uint32_t, GST_VIDEO_MAX_PLANES>;

// Fills frame @n's visible texels with bytes that differ per frame and per
// position; the row padding is left as it is, so it must not matter.
void paint_frame(GstVideoFrame *frame, uint64_t n);

// checksum.comp's sum over the @width x @height texels of @components bytes
// of a plane whose rows lie @stride bytes apart.
uint32_t cpu_checksum(const uint8_t *data, size_t stride, uint32_t width, uint32_t height,
                      uint32_t components);

PlaneSums frame_checksums(const GstVideoFrame *frame);

}  // namespace ef::examples
