// SPDX-License-Identifier: LGPL-2.1-or-later
// The last step of a CPU conversion: the finished image (cropped, turned and
// scaled to the content size) converted into the destination at the content
// rectangle, and the borders around it, a band of rows at a time.
#pragma once

#include <gst/video/video.h>
#include <libyuv.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cpu_deep.hpp"
#include "cpu_image.hpp"

namespace ef::gst::cpu {

// libyuv's constants for a source matrix and range, and their mirror for
// writing R before B (libyuv names byte order from the other end); for a
// deep source, the exact matrix in float instead.
struct YuvMatrix {
  const libyuv::YuvConstants *uv = nullptr;
  const libyuv::YuvConstants *vu = nullptr;
  DeepMatrix deep{};
};

// Whether every libyuv call that turns YUV into RGB here decodes, with
// `matrix`, samples from one end of their range to the other as the exact
// matrix (Kr, Kb; limited or full range) does, within 2 levels: the check on
// tables made outside libyuv (cpu_range.hpp).
bool decodes_exactly(const YuvMatrix &matrix, double kr, double kb, bool full_range);

enum class DstKind { Packed4, Packed3, Gray, Planar3 };

// Whether the writer handles `format` and how it lays out pixels.
bool dst_kind_of(GstVideoFormat format, DstKind &kind);
// The formats it handles, by preference.
std::vector<GstVideoFormat> dst_formats();

// The last step's interface: rows of the destination from the finished
// image, a band at a time on any thread (an image's Writer, or a tensor's,
// cpu_tensor.hpp).
class RowWriter {
 public:
  virtual ~RowWriter() = default;
  // Bytes of scratch one band needs to write `image` (0 when it goes
  // straight into the destination).
  virtual size_t strip_bytes(const Image &image) const = 0;
  // Writes rows [y0, y1) of the destination: border and content. A band
  // that starts inside the content must start an even number of rows into
  // it (a 4:2:0 image's chroma row serves two rows).
  virtual void write_rows(const Image &image, int y0, int y1, uint8_t *strip) const = 0;
  // Whether the border rows above and below the content cost a write (a
  // writer that leaves them as they are: bands are cut by content alone).
  virtual bool writes_border_rows() const { return true; }
};

class Writer : public RowWriter {
 public:
  // `border_rows_in_place`: the rows above and below the content hold the
  // border already and are left as they are.
  Writer(GstVideoFrame &dst, const GstVideoRectangle &content, const std::array<uint8_t, 4> &fill,
         YuvMatrix matrix, bool border_rows_in_place = false);
  // A destination of `format` given by the planes of each write_into().
  Writer(GstVideoFormat format, int width, int height, const GstVideoRectangle &content,
         const std::array<uint8_t, 4> &fill, YuvMatrix matrix);

  size_t strip_bytes(const Image &image) const override;
  void write_rows(const Image &image, int y0, int y1, uint8_t *strip) const override;
  bool writes_border_rows() const override { return !border_rows_in_place_; }
  // The same into `frame` (Planar3: R, G, B), whose row 0 is destination
  // row `first_row`.
  void write_into(const Planes &frame, int first_row, const Image &image, int y0, int y1,
                  uint8_t *strip) const;
  // The border's pixel in plane i, as the bytes it is written with.
  const std::array<uint8_t, 4> &fill_pixel(int i) const { return fill_[size_t(i)]; }

 private:
  static constexpr int kStripRows = 16;

  // `out`: where content row r0 goes.
  void content_rows(const Image &image, int r0, int r1, uint8_t *strip, const Planes &out) const;
  void yuv_rows(const Image &image, int r0, int r1, uint8_t *strip, const Planes &out) const;
  void deep_rows(const Image &image, int r0, int r1, uint8_t *strip, const Planes &out) const;
  void gray_rows(const Plane &gray, int r0, int r1, uint8_t *strip, const Planes &out) const;
  size_t argb_strip_bytes(const Image &image) const;
  // `s` is the first source row, `out` where it goes. `alpha_sink`: a row
  // of scratch (Planar3 output drops alpha there).
  void rgb4_rows(const uint8_t *s, int stride, bool red_first, Alpha alpha, const Planes &out,
                 int rows, uint8_t *alpha_sink) const;
  template <typename ToArgb>
  void through_strip(int r0, int r1, uint8_t *strip, const Planes &out, ToArgb to_argb) const;
  Planes below(const Planes &out, int rows) const;
  void fill(const Planes &frame, int first_row, int x0, int x1, int y0, int y1) const;

  DstKind kind_ = DstKind::Packed4;
  bool red_first_ = false;
  bool alpha_ = false;
  int width_ = 0;
  int height_ = 0;
  GstVideoRectangle content_{};
  // The destination's planes from its top-left corner (Planar3: R, G, B
  // whatever their order in memory); empty for a writer of planes given
  // each time.
  Planes frame_{};
  std::array<int, 3> bpp_{1, 1, 1};
  int n_planes_ = 1;
  // The fill colour as the bytes of one pixel of each plane.
  std::array<std::array<uint8_t, 4>, 3> fill_{};
  YuvMatrix matrix_;
  bool border_rows_in_place_ = false;
};

}  // namespace ef::gst::cpu
