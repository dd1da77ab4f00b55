// SPDX-License-Identifier: LGPL-2.1-or-later
// Tensors from the CPU backend: the writer of the last step makes each
// band's 8-bit rows a few at a time in scratch that stays in cache (RGB or
// BGR for NHWC, BGRx pixels for NCHW, luma for one channel), exactly as
// the image writer would write them into an RGB, BGRx or GRAY8 frame,
// and turns them into the tensor's values right away: no 8-bit frame is
// ever written whole, and the tensor is written once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cpu_image.hpp"
#include "cpu_pool.hpp"
#include "cpu_writer.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst::cpu {

// 8-bit channel values to one tensor type, per channel c of the tensor:
// float x * scale[c] + offset[c] ((x - mean) / std), quantised
// clamp(round(((x - mean) / std) / quant_scale) + zero_point) to the type's
// range, rounding half to even. The 256 results of each channel are
// tabled, in double precision, for the scalar path; where the CPU has
// AVX2, FMA and F16C the same is computed 24 values at a time in float
// (quantised only where that gives the table's every value, checked when
// the kernel is made).
class TensorKernel {
 public:
  // The vector path's constants for 24 values a round: three vectors of
  // 8, each with its own scale and offset (a pixel's three channels repeat
  // every 3 values, so every 24).
  struct Lanes {
    alignas(32) float scale[24];
    alignas(32) float offset[24];
  };

  // For tensors of `tensor_bytes` (whose size decides whether float32
  // stores stream past the cache: streams_tensor()).
  TensorKernel(TensorType type, const TensorNorm &norm, unsigned channels, size_t tensor_bytes = 0);
  static bool streams_tensor(size_t bytes);

  TensorType type() const { return type_; }
  size_t element_bytes() const { return bytes_; }
  // n values, channel i % channels of the tensor's (interleaved rows).
  void interleaved(const uint8_t *in, void *out, size_t n) const;
  // n values of channel `c` (a plane's row).
  void plane(const uint8_t *in, void *out, size_t n, unsigned c) const;
  // The same from byte `byte` of each of n 4-byte pixels (a BGRx row).
  void plane_of_pixels(const uint8_t *pixels, unsigned byte, void *out, size_t n, unsigned c) const;
  // The same from values in 8-bit units that lie between the levels (a
  // deep source's, or any source's for a float tensor: cpu_deep.hpp), in
  // float: x * scale + offset, the vector path's where it runs.
  void interleaved(const float *in, void *out, size_t n) const;
  void plane(const float *in, void *out, size_t n, unsigned c) const;
  // n pixels of row r of a deep image straight into three planes' rows,
  // R', G', B' (B', G', R' with `bgr`: cpu_deep.hpp deep_planes, the values
  // deep_row and plane() give, in one pass). False, nothing written, where
  // that path does not run (not a float type, no vector path, streamed
  // stores, an image not YUV).
  bool colour_planes(const Image &image, const DeepMatrix &m, int r, int n,
                     const std::array<uint8_t *, 3> &rows, bool bgr) const;
  // Whether the vector path runs, and streams (for tests and benchmarks).
  bool vectorised() const { return simd_; }
  bool streams() const { return simd_ && stream_; }

 private:
  // Value i of a row: data[i * stride + byte], or floats[i] where given.
  struct Source {
    const uint8_t *data;
    unsigned stride;  // 1 or 4
    unsigned byte;
    const float *floats = nullptr;
  };

  void run(const Source &from, void *out, size_t n, const std::array<unsigned, 3> &channel,
           unsigned period) const;
  // Values [begin, n) as the vector path computes them.
  void computed_values(const Source &from, uint8_t *out, size_t begin, size_t n,
                       const std::array<unsigned, 3> &channel, unsigned period) const;
  template <size_t Bytes>
  void tail(const Source &from, uint8_t *out, size_t begin, size_t n,
            const std::array<unsigned, 3> &channel, unsigned period) const;

  TensorType type_;
  unsigned channels_;
  size_t bytes_;
  std::array<float, 3> scale_{}, offset_{};
  float low_ = 0, high_ = 0;  // quantised: the clamp before rounding (range - zero point)
  int zero_point_ = 0;
  bool stream_;
  bool simd_ = false;
  std::array<Lanes, 6> lanes_{};  // channel 0, 1, 2 alone; [3 + c] interleaved from c
  // [channel][x]: the value's bytes (element_bytes() each).
  std::array<std::array<uint8_t, 256 * 4>, 3> table_{};
};

// Where a tensor goes: one contiguous block of spec.size() bytes.
struct TensorTarget {
  uint8_t *data = nullptr;
  TensorSpec spec;
  // The border rows above and below the content hold this conversion's
  // values already (cpu_border_tag.hpp): they are left as they are.
  bool borders_in_place = false;
};

class TensorWriter : public RowWriter {
 public:
  // Made on the calling thread: the border's values go into `arena`.
  TensorWriter(const TensorTarget &target, const ConvertParams &params, YuvMatrix matrix,
               const TensorKernel &kernel, Arena &arena);

  size_t strip_bytes(const Image &image) const override;
  void write_rows(const Image &image, int y0, int y1, uint8_t *strip) const override;
  bool writes_border_rows() const override { return !target_.borders_in_place; }

  // The 8-bit format of the rows made in scratch for a tensor.
  static GstVideoFormat staging_format(const TensorSpec &spec, bool bgr);

 private:
  static constexpr int kChunkRows = 8;
  // R, G, B's byte in a BGRx pixel.
  static constexpr unsigned kByteOf[3] = {2, 1, 0};

  // Tensor plane p (NHWC: the only one), row y.
  uint8_t *row(unsigned p, int y) const;
  Plane staging_rows(uint8_t *data, int rows) const;
  void border_rows(int y0, int y1) const;
  void expand(const Plane &from, int y0, int y1) const;
  void content_rows(const Image &image, int y0, int y1, uint8_t *strip) const;
  // A deep image's rows from its colour in float (cpu_deep.hpp), never
  // rounded to 8 bits; the borders' values are the staging writer's.
  void deep_rows(const Image &image, int y0, int y1, uint8_t *strip) const;
  float border_value(unsigned channel) const;

  TensorTarget target_;
  GstVideoRectangle content_;
  const TensorKernel &kernel_;
  DeepMatrix deep_;
  Writer staging_;
  bool planar_;
  bool bgr_;
  unsigned planes_;    // tensor planes: NCHW channels, else 1
  size_t row_values_;  // values in a row of a tensor plane
  int pixel_bytes_;    // of the staging format: BGRx 4, RGB or BGR 3, GRAY8 1
  size_t staging_row_ = 0;
  size_t staging_bytes_ = 0;
  Plane fill_{};  // a border row of 8-bit staging pixels, stride 0
};

}  // namespace ef::gst::cpu
