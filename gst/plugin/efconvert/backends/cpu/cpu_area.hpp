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
// every sample as centred). Samples are bytes, or 16-bit words (a deep
// image's planes, cpu_deep.hpp), which take the same footprints; bytes
// can also come out as words holding each mean times 256, rounded there
// and not to a byte (an 8-bit plane for a float tensor, cpu_steps.hpp).
#pragma once

#include <array>
#include <cstdint>

#include "cpu_pool.hpp"

namespace ef::gst::cpu {

// How one axis of a source plane maps onto the output: the output's `out`
// pixels share `span` pixels of the source's luma equally, and the plane
// has `samples` samples along it, each covering `sub` (1 or 2) of them.
// `site`: where a sample sits, in half pixels before the middle of the
// pixels it covers (Image::site_x): 0 between them (centred), +1 on the
// first (cosited), -1 on the last, 2 or 3 a pixel further left (an odd
// crop, an odd axis reversed). `area`: the footprint mean, else linear interpolation.
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

// An output pixel spans more than 1.5 of the luma's pixels along the axis:
// from there the GL and CUDA passes take the box (gl_layout kBoxFrom), and
// so does the CPU, so that a model's input is one picture whichever ran.
inline bool boxes(const Axis &a) {
  return 2 * int64_t(a.span) > 3 * int64_t(a.out);
}

// Where the output goes: channel c of output pixel (x, y) at
// data[c] + y * stride[c] + x * step samples (bytes, or words: strides are
// in bytes whatever the sample).
struct Outputs {
  std::array<uint8_t *, 4> data{};
  std::array<int, 4> stride{};
  int step = 1;
};

// One axis's weights (cpu_area.cpp).
struct Taps {
  int32_t *first = nullptr;     // each output's first sample
  uint32_t *weights = nullptr;  // output i's n at [i * n, (i + 1) * n), zero-padded
  int outputs = 0;
  int n = 0;
  uint32_t total = 0;  // every output's weights sum to it
};

// What a resampler reads and writes.
enum class Samples {
  Bytes,         // bytes in, bytes out
  Words,         // 16-bit words in and out (a deep plane)
  BytesToWords,  // bytes in, words out: each mean times 256, rounded to a word
};

// A plane's resampling, planned on the calling thread once a frame: the
// weights of every output row and column and each slot's scratch, all from
// `arena` (valid until its reset). rows() then runs on any thread, one slot
// per thread at a time: the bands of a frame, or the planes of one.
class Resampler {
 public:
  // `channels` (1, 2 or 4) interleaved bytes a sample; of words, one
  // channel (a deep plane). An output channel whose `Outputs` data is null
  // is not written.
  Resampler(const Axis &x, const Axis &y, int channels, unsigned slots, Arena &arena,
            Samples samples = Samples::Bytes);

  // Output rows [r0, r1) of `src` into `dst`. Each row is the same bytes
  // whatever the range and slot.
  void rows(const uint8_t *src, int stride, const Outputs &dst, unsigned slot, int r0,
            int r1) const;

 private:
  void plan_vectors(Arena &arena);
  template <typename In, typename Out, typename Col>
  void run(const uint8_t *src, int stride, const Outputs &dst, Col *col, unsigned slot, int r0,
           int r1) const;

  Taps x_, y_;
  int channels_ = 1;
  bool words_ = false;  // 16-bit samples in
  int shift_ = 0;       // outputs are the means times 2^shift_ (8: bytes to words)
  int bytes_ = 0;       // of a source row: samples times channels (words: samples)
  size_t room_ = 0;     // column sums a slot holds (past bytes_: zeros the taps may read)
  // Whether column sums fit the narrower of their two types: 255 times the
  // vertical total 16 bits (bytes), 65535 times it 32 (words).
  bool narrow_ = false;
  uint64_t total_ = 0;
  // Where every sum fits 31 bits and the CPU has AVX2: eight outputs a
  // vector, from a window of 8 16-bit column sums an output (window_), else
  // from two vectors of column sums permuted (few taps), else along each
  // output's taps (`lanes`: its weights per channel, `vectors` of 8).
  bool vector_ = false, permuted_ = false;
  int32_t *base_ = nullptr;                              // permuted: each vector's first column sum
  uint32_t *index_ = nullptr, *lane_weights_ = nullptr;  // permuted: per vector and tap
  int vectors_ = 0;
  // Where each output's taps lie within 8 16-bit column sums
  // (cpu_area_window.hpp): its weights, else null.
  int16_t *window_ = nullptr;
  uint8_t *scratch_ = nullptr;  // slot k's column sums, sums and bytes
  size_t slot_bytes_ = 0;
};

}  // namespace ef::gst::cpu
