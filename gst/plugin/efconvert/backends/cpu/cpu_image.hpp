// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's view of an image between steps: plane pointers with
// strides (negative for a vertically flipped view) into the source frame,
// the arena or the destination. A deep image (a source of more than 8 bits
// a sample: P010, I420_10LE, ...; or an 8-bit source scaled for a float
// tensor, its means unrounded) holds 16-bit samples, the sample in the
// high bits as P010 lays it out (cpu_deep.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ef::gst::cpu {

struct Plane {
  uint8_t *data = nullptr;
  int stride = 0;  // bytes from one row to the next; negative when flipped
  int width = 0;   // in elements: pixels, or U,V pairs
  int height = 0;
  int bpp = 1;  // bytes per element: 1, 2 (interleaved U,V; a deep image's sample) or 4

  uint8_t *row(int y) const { return data + ptrdiff_t(y) * stride; }
  uint8_t *at(int x, int y) const { return row(y) + ptrdiff_t(x) * bpp; }
  // The same rows bottom up.
  Plane flipped() const { return {row(height - 1), -stride, width, height, bpp}; }
};

// The planes of a destination, Planar3 by colour (R, G, B).
using Planes = std::array<Plane, 3>;

enum class Layout {
  Yuv,   // Y plane + U, V planes, or + one interleaved U,V plane (NV12)
  Rgb4,  // one plane, 4 bytes a pixel: three colour bytes, then alpha or padding
  Gray,  // one plane of full-range luma
};

// What byte 3 of an Rgb4 pixel holds.
enum class Alpha { Real, Opaque, Padding };

struct Image {
  Layout layout = Layout::Gray;
  std::array<Plane, 3> planes{};
  int n_planes = 1;
  int wsub = 0;  // Yuv: log2 of the chroma subsampling across and down
  int hsub = 0;
  // Yuv: where a subsampled axis's chroma samples sit, in half pixels
  // before the middle of the two pixels each covers: 0 between them
  // (centred), +1 on the first (cosited, as the caps' chroma-site says),
  // -1 on the last (a cosited axis flipped or turned), 2 or 3 a pixel
  // further left (a crop that starts on a pair's second pixel; a flipped
  // axis of an odd length, whose first sample covers one pixel outside);
  // 0 on an axis that is not subsampled. Sample k sits at luma 2k + 1 -
  // site / 2 (pixel i spans [i, i + 1)).
  int site_x = 0;
  int site_y = 0;
  bool red_first = false;  // Rgb4: R,G,B in bytes 0-2 (else B,G,R)
  Alpha alpha = Alpha::Opaque;
  // Yuv or Gray of 16-bit samples (every plane; chroma never interleaved),
  // or Rgb4 as R, G, B planes of them (an 8-bit source widened): the
  // source's `bits` significant bits in the high bits of each, and 8 bits
  // (a widened source's) the fraction of its means below them.
  bool deep = false;
  int bits = 8;

  bool interleaved_chroma() const { return layout == Layout::Yuv && n_planes == 2; }
};

// The site (above) of an axis subsampled by 2^shift once it runs
// backwards: `span` pixels and `samples` chroma samples, which may reach
// a pixel past the span's end (an odd span, or an odd crop's far side).
inline int reversed_site(int site, int shift, int span, int samples) {
  return shift ? 2 * (2 * samples - span) - site : 0;
}

// Size of a plane subsampled by 2^shift, rounded up (a 3-pixel row has 2 chroma samples).
inline int subsampled(int size, int shift) {
  return (size + (1 << shift) - 1) >> shift;
}

}  // namespace ef::gst::cpu
