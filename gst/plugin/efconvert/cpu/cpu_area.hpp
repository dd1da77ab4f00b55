// SPDX-License-Identifier: LGPL-2.1-or-later
// Resampling by the exact footprint: each output sample the mean of the
// source over the rectangle the output pixel covers, every source sample
// holding its area (chroma sited as the caps say), the samples an edge cuts
// weighed by the part it covers; along an axis that enlarges in a plane
// that no axis reduces by 2, linear interpolation between the samples'
// sites instead. Weights are integers, so every output is the exactly
// rounded mean, whatever the ratio. For what libyuv's box cannot do: edges
// inside a sample (libyuv takes whole source pixels at each edge, 10 levels
// off on colour steps at 9.7 x 14.1), one-pixel sides (libyuv filters the
// other axis bilinearly, from two rows of 240), boxes beyond 256 pixels
// (libyuv's 16-bit reciprocal darkens them) and sited chroma (libyuv takes
// every sample as centred).
#pragma once

#include <array>
#include <cstdint>

namespace ef::gst::cpu {

// How one axis of a source plane maps onto the output: the output's `out`
// pixels share `span` pixels of the source's luma equally, and the plane
// has `samples` samples along it, each covering `sub` (1 or 2) of them.
// `site`: where a sample sits on the pixels it covers: 0 between them
// (centred), +1 on the first (cosited), -1 on the last (a cosited axis
// turned or flipped). `area`: the footprint mean, else linear interpolation.
struct Axis {
  int samples = 0, out = 0, span = 0;
  int sub = 1, site = 0;
  bool area = true;
};

// An axis of a plane that is not subsampled: `samples` pixels to `out`.
inline Axis plain_axis(int samples, int out) {
  return {samples, out, samples};
}

// Samples per output pixel, in the plane's own samples, at least `ratio`.
inline bool reduces_by(const Axis &a, int ratio) {
  return int64_t(a.span) >= int64_t(ratio) * a.sub * a.out;
}

// Where the output goes: channel c of output pixel (x, y) at
// data[c] + y * stride[c] + x * step.
struct Outputs {
  std::array<uint8_t *, 4> data{};
  std::array<int, 4> stride{};
  int step = 1;
};

// Output rows [r0, r1) of `src`, `channels` (1, 2 or 4) interleaved bytes a
// sample, resampled as `x` and `y` say. Each row is the same bytes whatever
// the range; scratch is kept per thread (no allocation once warm).
void resample_rows(const uint8_t *src, int src_stride, int channels, const Axis &x, const Axis &y,
                   const Outputs &dst, int r0, int r1);

}  // namespace ef::gst::cpu
