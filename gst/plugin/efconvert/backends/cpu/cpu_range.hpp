// SPDX-License-Identifier: LGPL-2.1-or-later
// Limited-range YUV. libyuv's limited-range tables (built, as Debian's is,
// without LIBYUV_UNLIMITED_DATA) cap the blue-from-U coefficient at 2.0
// (128/64): BT.601 needs 2.018, BT.709 2.112, BT.2020 2.142, so saturated
// blue comes out up to 13 levels low. Its x86 kernels read that coefficient
// as an unsigned byte, so a copy of the table with it put back decodes
// exactly, at no cost; it is checked once against the exact matrix before it
// is used. Where it does not check out (another table layout), the bytes are
// expanded to full range first, whose tables fit (1.77, 1.86, 1.88).
#pragma once

#include <gst/video/video.h>

#include <cstdint>

#include "cpu_writer.hpp"

namespace ef::gst::cpu {

// libyuv's limited-range table for BT.601, BT.709 or BT.2020 with its blue
// coefficient restored, or nullptr where that does not decode exactly.
const YuvMatrix *exact_limited_range(GstVideoColorMatrix matrix);

// Y: 16..235 to 0..255. n bytes.
void expand_luma(const uint8_t *in, uint8_t *out, int n);
// U and V: 16..240 to 0..255 about 128. n bytes.
void expand_chroma(const uint8_t *in, uint8_t *out, int n);

}  // namespace ef::gst::cpu
