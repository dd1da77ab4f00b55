// SPDX-License-Identifier: LGPL-2.1-or-later
// The reference a downscale is held to: the exact area mean of the source
// over each output pixel's footprint, computed in double from the source's
// own samples (chroma of 4:2:0 and 4:2:2 as each sample's area, sited as
// the frame says), then converted to R'G'B' with the source's matrix and
// range. Written from the definitions, apart from both backends.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <vector>

namespace ef::test {

// R', G', B', A on the 8-bit scale, unrounded and unclamped.
using BoxRgba = std::array<double, 4>;

struct BoxImage {
  int w = 0, h = 0;
  std::vector<BoxRgba> px;  // row by row
  const BoxRgba &at(int x, int y) const { return px[size_t(y) * size_t(w) + size_t(x)]; }
};

// The crop of `src` (NV12, I420, YUY2, UYVY, GRAY8, the RGB family, or
// one of the 16-bit-word formats of more than 8 bits: P010_10LE,
// I420_10LE, ...)
// reduced to w x h pixels in the source's own orientation: pixel (i, j) is
// the mean over [crop.x + i * crop.w / w, crop.x + (i + 1) * crop.w / w) x
// (the same in y), texels weighed by the part of them it covers.
BoxImage box_reference(const GstVideoFrame &src, const GstVideoRectangle &crop, int w, int h);

// Where content pixel (x, y) of an output turned by `d` comes from in the
// unturned image of cw x ch (turned) pixels. Written out per direction,
// apart from convert_params, so that the two have to agree.
void unturn(GstVideoOrientationMethod d, int x, int y, int cw, int ch, int &ux, int &uy);

}  // namespace ef::test
