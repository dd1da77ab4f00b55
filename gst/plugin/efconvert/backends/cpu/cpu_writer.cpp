// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ef::gst::cpu {
namespace {

using PlanarToRgb = int (*)(const uint8_t *, int, const uint8_t *, int, const uint8_t *, int,
                            uint8_t *, int, const libyuv::YuvConstants *, int, int);
using SemiPlanarToRgb = int (*)(const uint8_t *, int, const uint8_t *, int, uint8_t *, int,
                                const libyuv::YuvConstants *, int, int);

// [chroma: 4:2:0, 4:2:2, 4:4:4][4 or 3 bytes out]
constexpr PlanarToRgb kPlanarToRgb[3][2] = {
    {libyuv::I420ToARGBMatrix, libyuv::I420ToRGB24Matrix},
    {libyuv::I422ToARGBMatrix, libyuv::I422ToRGB24Matrix},
    {libyuv::I444ToARGBMatrix, libyuv::I444ToRGB24Matrix},
};
// [V before U][4 or 3 bytes out]
constexpr SemiPlanarToRgb kSemiPlanarToRgb[2][2] = {
    {libyuv::NV12ToARGBMatrix, libyuv::NV12ToRGB24Matrix},
    {libyuv::NV21ToARGBMatrix, libyuv::NV21ToRGB24Matrix},
};

int chroma_index(const Image &image) {
  if (image.wsub == 0)
    return 2;
  return image.hsub == 0 ? 1 : 0;
}

// Rows [r0, r0 + rows) of a YUV image to 3 or 4 bytes a pixel, B first or
// R first.
void yuv_to_packed(const YuvMatrix &matrix, const Image &image, int width, int r0, int rows,
                   uint8_t *out, int out_stride, int out_bpp, bool red_first) {
  const Plane &y = image.planes[0];
  const int cr = r0 >> image.hsub;
  const int bytes = out_bpp == 4 ? 0 : 1;
  const libyuv::YuvConstants *constants = red_first ? matrix.vu : matrix.uv;
  if (image.interleaved_chroma()) {
    const Plane &uv = image.planes[1];
    kSemiPlanarToRgb[red_first][bytes](y.row(r0), y.stride, uv.row(cr), uv.stride, out, out_stride,
                                       constants, width, rows);
    return;
  }
  // libyuv writes B first; R first is the same call with U and V swapped.
  const Plane &u = image.planes[red_first ? 2 : 1];
  const Plane &v = image.planes[red_first ? 1 : 2];
  kPlanarToRgb[chroma_index(image)][bytes](y.row(r0), y.stride, u.row(cr), u.stride, v.row(cr),
                                           v.stride, out, out_stride, constants, width, rows);
}

// BT.601 full-range luma, GRAY8's colorimetry, rounded.
uint8_t luma_of(const std::array<uint8_t, 4> &rgba) {
  return uint8_t((299 * rgba[0] + 587 * rgba[1] + 114 * rgba[2] + 500) / 1000);
}

void force_opaque(uint8_t *data, int stride, int width, int rows) {
  for (int y = 0; y < rows; ++y, data += stride)
    for (int x = 0; x < width; ++x)
      data[4 * x + 3] = 0xff;
}

}  // namespace

namespace {

struct Output {
  GstVideoFormat format;
  DstKind kind;
};

// The formats the writer makes, in the order efconvert's caps prefer them.
constexpr Output kOutputs[] = {
    {GST_VIDEO_FORMAT_RGB, DstKind::Packed3},  {GST_VIDEO_FORMAT_BGR, DstKind::Packed3},
    {GST_VIDEO_FORMAT_RGBA, DstKind::Packed4}, {GST_VIDEO_FORMAT_BGRA, DstKind::Packed4},
    {GST_VIDEO_FORMAT_RGBx, DstKind::Packed4}, {GST_VIDEO_FORMAT_BGRx, DstKind::Packed4},
    {GST_VIDEO_FORMAT_GRAY8, DstKind::Gray},   {GST_VIDEO_FORMAT_RGBP, DstKind::Planar3},
    {GST_VIDEO_FORMAT_BGRP, DstKind::Planar3},
};

}  // namespace

bool dst_kind_of(GstVideoFormat format, DstKind &kind) {
  for (const Output &o : kOutputs)
    if (o.format == format) {
      kind = o.kind;
      return true;
    }
  return false;
}

std::vector<GstVideoFormat> dst_formats() {
  std::vector<GstVideoFormat> formats;
  for (const Output &o : kOutputs)
    formats.push_back(o.format);
  return formats;
}

bool decodes_exactly(const YuvMatrix &matrix, double kr, double kb, bool full_range) {
  // Wider than libyuv's widest vector step, so its SIMD rows run and not
  // only its C tails. Chroma is the same in each 2x2 block, so every
  // subsampling decodes the same samples; V runs through U's values in
  // another order, so extremes of both meet.
  constexpr int kWidth = 64, kRows = 2, kPairs = kWidth / 2;
  std::array<uint8_t, kWidth * kRows> y;
  std::array<uint8_t, kWidth> u, v, uv;
  std::array<uint8_t, kPairs> u2, v2;
  for (int x = 0; x < kWidth; ++x) {
    y[x] = uint8_t(16 + x * 219 / (kWidth - 1));
    y[kWidth + x] = uint8_t(235 - x * 219 / (kWidth - 1));
    const int pair = x / 2;
    u[x] = u2[pair] = uv[2 * pair] = uint8_t(16 + pair * 224 / (kPairs - 1));
    v[x] = v2[pair] = uv[2 * pair + 1] = uint8_t(16 + (pair * 7 % kPairs) * 224 / (kPairs - 1));
  }
  auto expected = [&](int x, int row, int component) {
    const double scale = full_range ? 1.0 : 255.0 / 224;
    const double luma = full_range ? y[row * kWidth + x] : (y[row * kWidth + x] - 16) * 255.0 / 219;
    const double cb = (u[x] - 128) * scale, cr = (v[x] - 128) * scale;
    const double kg = 1 - kr - kb;
    const double rgb[3] = {luma + 2 * (1 - kr) * cr,
                           luma - (2 * kb * (1 - kb) * cb + 2 * kr * (1 - kr) * cr) / kg,
                           luma + 2 * (1 - kb) * cb};
    return std::clamp(rgb[component], 0.0, 255.0);
  };
  // 4:4:4, 4:2:2 and 4:2:0 planes (stride 0: every row the same) and NV12.
  auto planar = [&](uint8_t *cu, uint8_t *cv, int width, int wsub, int hsub) {
    Image image;
    image.layout = Layout::Yuv;
    image.n_planes = 3;
    image.planes = {Plane{y.data(), kWidth, kWidth, kRows}, Plane{cu, 0, width, kRows},
                    Plane{cv, 0, width, kRows}};
    image.wsub = wsub, image.hsub = hsub;
    return image;
  };
  Image nv12 = planar(nullptr, nullptr, 0, 1, 1);
  nv12.n_planes = 2;
  nv12.planes[1] = Plane{uv.data(), 0, kPairs, 1, 2};
  const Image images[] = {planar(u.data(), v.data(), kWidth, 0, 0),
                          planar(u2.data(), v2.data(), kPairs, 1, 0),
                          planar(u2.data(), v2.data(), kPairs, 1, 1), nv12};
  std::array<uint8_t, kWidth * kRows * 4> out;
  for (const Image &image : images)
    for (int bpp : {3, 4})
      for (bool red_first : {false, true}) {
        yuv_to_packed(matrix, image, kWidth, 0, kRows, out.data(), kWidth * bpp, bpp, red_first);
        for (int row = 0; row < kRows; ++row)
          for (int x = 0; x < kWidth; ++x)
            for (int c = 0; c < 3; ++c) {
              const uint8_t got = out[(row * kWidth + x) * bpp + (red_first ? c : 2 - c)];
              if (std::abs(got - expected(x, row, c)) > 2)
                return false;
            }
      }
  return true;
}

Writer::Writer(GstVideoFrame &dst, const GstVideoRectangle &content,
               const std::array<uint8_t, 4> &fill, YuvMatrix matrix, bool border_rows_in_place)
    : Writer(GST_VIDEO_FRAME_FORMAT(&dst), GST_VIDEO_FRAME_WIDTH(&dst),
             GST_VIDEO_FRAME_HEIGHT(&dst), content, fill, matrix) {
  border_rows_in_place_ = border_rows_in_place;
  const GstVideoFormatInfo *finfo = dst.info.finfo;
  for (int i = 0; i < n_planes_; ++i) {
    // Planar: plane i holds colour i (R, G, B), wherever it lies in memory.
    const guint plane = n_planes_ > 1 ? GST_VIDEO_FORMAT_INFO_PLANE(finfo, i) : 0;
    frame_[i] = {static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&dst, plane)),
                 GST_VIDEO_FRAME_PLANE_STRIDE(&dst, plane), width_, height_, bpp_[i]};
  }
}

Writer::Writer(GstVideoFormat format, int width, int height, const GstVideoRectangle &content,
               const std::array<uint8_t, 4> &fill, YuvMatrix matrix)
    : width_(width), height_(height), content_(content), matrix_(matrix) {
  const GstVideoFormatInfo *finfo = gst_video_format_get_info(format);
  dst_kind_of(format, kind_);
  alpha_ = GST_VIDEO_FORMAT_INFO_HAS_ALPHA(finfo);
  red_first_ = GST_VIDEO_FORMAT_INFO_POFFSET(finfo, GST_VIDEO_COMP_R) == 0;
  const bool planar = kind_ == DstKind::Planar3;
  n_planes_ = planar ? 3 : 1;
  for (int i = 0; i < n_planes_; ++i) {
    fill_[i].fill(0xff);  // padding bytes (RGBx) too
    bpp_[i] = GST_VIDEO_FORMAT_INFO_PSTRIDE(finfo, planar ? i : 0);
  }
  if (kind_ == DstKind::Gray) {
    fill_[0][0] = luma_of(fill);
    return;
  }
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++c) {
    if (planar)
      fill_[c][0] = fill[c];
    else
      fill_[0][GST_VIDEO_FORMAT_INFO_POFFSET(finfo, c)] = fill[c];
  }
}

size_t Writer::argb_strip_bytes(const Image &image) const {
  if (image.deep)  // one row of R, G, B floats
    return size_t(3) * deep_row_floats(content_.w) * sizeof(float);
  const bool direct = kind_ == DstKind::Packed4 || kind_ == DstKind::Packed3;
  const bool needs = (image.layout == Layout::Yuv && !direct) ||
                     (image.layout == Layout::Gray && kind_ == DstKind::Packed3);
  return needs ? size_t(kStripRows) * content_.w * 4 : 0;
}

// Planar output splits ARGB rows into a scratch alpha row too: libyuv's
// split without an alpha plane (SplitXRGBRow_Any_*, 1857) copies a row's
// last pixels into a temporary too small for them, which a fortified build
// aborts on (widths 29, 31, 45, ...); with one its wrapper has room.
size_t Writer::strip_bytes(const Image &image) const {
  const size_t alpha = kind_ == DstKind::Planar3 ? (size_t(content_.w) + 63) / 64 * 64 : 0;
  return argb_strip_bytes(image) + alpha;
}

void Writer::write_rows(const Image &image, int y0, int y1, uint8_t *strip) const {
  write_into(frame_, 0, image, y0, y1, strip);
}

// `frame`'s row 0 is destination row `first_row`: the whole frame, or a few
// rows of scratch.
void Writer::write_into(const Planes &frame, int first_row, const Image &image, int y0, int y1,
                        uint8_t *strip) const {
  const int top = content_.y;
  const int bottom = content_.y + content_.h;
  if (!border_rows_in_place_) {
    fill(frame, first_row, 0, width_, y0, std::min(y1, top));
    fill(frame, first_row, 0, width_, std::max(y0, bottom), y1);
  }
  const int c0 = std::max(y0, top);
  const int c1 = std::min(y1, bottom);
  if (c0 >= c1)
    return;
  fill(frame, first_row, 0, content_.x, c0, c1);
  fill(frame, first_row, content_.x + content_.w, width_, c0, c1);
  Planes out = frame;
  for (int i = 0; i < n_planes_; ++i)
    out[i].data = frame[i].at(content_.x, c0 - first_row);
  content_rows(image, c0 - top, c1 - top, strip, out);
}

// `out`: where content row r0 goes.
void Writer::content_rows(const Image &image, int r0, int r1, uint8_t *strip,
                          const Planes &out) const {
  const Plane &first = image.planes[0];
  if (image.deep)
    return deep_rows(image, r0, r1, strip, out);
  switch (image.layout) {
    case Layout::Yuv:
      yuv_rows(image, r0, r1, strip, out);
      break;
    case Layout::Gray:
      gray_rows(first, r0, r1, strip, out);
      break;
    case Layout::Rgb4:
      rgb4_rows(first.row(r0), first.stride, image.red_first, image.alpha, out, r1 - r0,
                strip + argb_strip_bytes(image));
      break;
  }
}

// The planes of `out` from its row `rows` on.
Planes Writer::below(const Planes &out, int rows) const {
  Planes moved = out;
  for (int i = 0; i < n_planes_; ++i)
    moved[i].data = out[i].row(rows);
  return moved;
}

// YUV (or gray) to a format libyuv cannot write from it goes through ARGB
// rows few enough to stay in cache.
template <typename ToArgb>
void Writer::through_strip(int r0, int r1, uint8_t *strip, const Planes &out,
                           ToArgb to_argb) const {
  const int stride = content_.w * 4;
  for (int r = r0; r < r1; r += kStripRows) {
    const int rows = std::min(kStripRows, r1 - r);
    to_argb(r, rows, strip, stride);
    rgb4_rows(strip, stride, false, Alpha::Opaque, below(out, r - r0), rows,
              strip + size_t(kStripRows) * stride);
  }
}

void Writer::yuv_rows(const Image &image, int r0, int r1, uint8_t *strip, const Planes &out) const {
  if (kind_ == DstKind::Packed4 || kind_ == DstKind::Packed3) {
    const Plane &o = out[0];
    yuv_to_packed(matrix_, image, content_.w, r0, r1 - r0, o.data, o.stride, o.bpp, red_first_);
    return;
  }
  through_strip(r0, r1, strip, out, [&](int r, int rows, uint8_t *argb, int stride) {
    yuv_to_packed(matrix_, image, content_.w, r, rows, argb, stride, 4, false);
  });
}

// Each row's colour in float from the samples (cpu_deep.hpp), rounded
// once, here, into the destination's bytes. Deep sources are opaque.
void Writer::deep_rows(const Image &image, int r0, int r1, uint8_t *strip,
                       const Planes &out) const {
  const int w = content_.w;
  float *const floats = reinterpret_cast<float *>(strip);
  const size_t step = deep_row_floats(w);
  float *const c[3] = {floats, floats + step, floats + 2 * step};
  auto byte = [](float v) { return uint8_t(v + 0.5f); };  // v in 0..255
  const bool gray = kind_ == DstKind::Gray;
  for (int r = r0; r < r1; ++r) {
    deep_row(image, matrix_.deep, r, w, gray, c);
    if (kind_ == DstKind::Packed4 || kind_ == DstKind::Packed3) {
      uint8_t *o = out[0].row(r - r0);
      const int bpp = out[0].bpp, red = red_first_ ? 0 : 2, blue = 2 - red;
      for (int x = 0; x < w; ++x, o += bpp) {
        o[red] = byte(c[0][x]);
        o[1] = byte(c[1][x]);
        o[blue] = byte(c[2][x]);
        if (bpp == 4)
          o[3] = 0xff;
      }
      continue;
    }
    for (int i = 0; i < n_planes_; ++i) {
      uint8_t *o = out[i].row(r - r0);
      for (int x = 0; x < w; ++x)
        o[x] = byte(c[i][x]);
    }
  }
}

void Writer::gray_rows(const Plane &gray, int r0, int r1, uint8_t *strip, const Planes &out) const {
  const int rows = r1 - r0;
  switch (kind_) {
    case DstKind::Gray:
    case DstKind::Planar3:
      for (int i = 0; i < n_planes_; ++i)
        libyuv::CopyPlane(gray.row(r0), gray.stride, out[i].data, out[i].stride, content_.w, rows);
      break;
    case DstKind::Packed4:
      libyuv::J400ToARGB(gray.row(r0), gray.stride, out[0].data, out[0].stride, content_.w, rows);
      break;
    case DstKind::Packed3:
      through_strip(r0, r1, strip, out, [&](int r, int n, uint8_t *argb, int stride) {
        libyuv::J400ToARGB(gray.row(r), gray.stride, argb, stride, content_.w, n);
      });
      break;
  }
}

// The byte functions of libyuv move bytes, whatever they hold: "ARGB to
// RGB24" keeps bytes 0-2 in order, "to RAW" and "to ABGR" swap 0 and 2.
void Writer::rgb4_rows(const uint8_t *s, int stride, bool red_first, Alpha alpha, const Planes &out,
                       int rows, uint8_t *alpha_sink) const {
  const Plane &o = out[0];
  const bool same = red_first == red_first_;
  switch (kind_) {
    case DstKind::Packed4:
      if (same)
        libyuv::ARGBCopy(s, stride, o.data, o.stride, content_.w, rows);
      else
        libyuv::ARGBToABGR(s, stride, o.data, o.stride, content_.w, rows);
      if (alpha == Alpha::Padding && alpha_)
        force_opaque(o.data, o.stride, content_.w, rows);
      break;
    case DstKind::Packed3:
      if (same)
        libyuv::ARGBToRGB24(s, stride, o.data, o.stride, content_.w, rows);
      else
        libyuv::ARGBToRAW(s, stride, o.data, o.stride, content_.w, rows);
      break;
    case DstKind::Gray:
      if (red_first)
        libyuv::ABGRToJ400(s, stride, o.data, o.stride, content_.w, rows);
      else
        libyuv::ARGBToJ400(s, stride, o.data, o.stride, content_.w, rows);
      break;
    case DstKind::Planar3: {
      // SplitARGBPlane sends byte 2 to its "r" plane and byte 0 to its "b".
      const Plane &byte0 = out[red_first ? 0 : 2];
      const Plane &byte2 = out[red_first ? 2 : 0];
      libyuv::SplitARGBPlane(s, stride, byte2.data, byte2.stride, out[1].data, out[1].stride,
                             byte0.data, byte0.stride, alpha_sink, 0, content_.w, rows);
      break;
    }
  }
}

void Writer::fill(const Planes &frame, int first_row, int x0, int x1, int y0, int y1) const {
  if (x0 >= x1 || y0 >= y1)
    return;
  for (int i = 0; i < n_planes_; ++i) {
    const Plane &p = frame[i];
    const size_t bytes = size_t(x1 - x0) * p.bpp;
    uint8_t *first = p.at(x0, y0 - first_row);
    // One byte a pixel, or a pixel of equal bytes (black, white, greys):
    // a memset of each row, which reads nothing.
    const auto *pixel = fill_[i].data();
    if (std::all_of(pixel, pixel + p.bpp, [&](uint8_t b) { return b == pixel[0]; })) {
      libyuv::SetPlane(first, p.stride, int(bytes), y1 - y0, pixel[0]);
      continue;
    }
    for (size_t b = 0; b < bytes; b += p.bpp)
      std::memcpy(first + b, fill_[i].data(), p.bpp);
    for (int y = y0 + 1; y < y1; ++y)
      std::memcpy(p.at(x0, y - first_row), first, bytes);
  }
}

}  // namespace ef::gst::cpu
