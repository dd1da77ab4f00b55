// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's CPU backend against GstVideoConverter on the same frames: every
// input and output format, scaling, letterbox, crop, directions, colorimetry,
// odd sizes, padded strides and threads.
// The standard headers come first: Check's fail() macro breaks <ios>.
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/backends/cpu/cpu_box.hpp"
#include "efconvert/backends/cpu/cpu_converter.hpp"
#include "efconvert/backends/cpu/cpu_range.hpp"
#include "sanitized.hpp"
#include "simd_level.hpp"

using namespace ef::gst;
using ef::test::OneIn;

// Counts every operator new in the process (test_steady_state_allocates_nothing).
// Out of line: inlined, GCC would pair the malloc and free it sees with the
// new and delete of the callers and warn of a mismatch.
static std::atomic<long> g_allocations{0};

[[gnu::noinline]] void *operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void *p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}

// Every libyuv SplitARGBPlane call of the backend passes through here
// (the backend is compiled into this program, so its calls bind to this
// definition first). Without an alpha plane libyuv 1857 splits through
// SplitXRGBRow_Any_*, whose temporary is too small for a row's last 13 to
// 15 pixels: Debian 13's fortified build aborts there; elsewhere the
// overflow is silent, so the call itself is what is counted.
static std::atomic<long> g_split_without_alpha{0};

namespace libyuv {
extern "C" void SplitARGBPlane(const uint8_t *src_argb, int src_stride_argb, uint8_t *dst_r,
                               int dst_stride_r, uint8_t *dst_g, int dst_stride_g, uint8_t *dst_b,
                               int dst_stride_b, uint8_t *dst_a, int dst_stride_a, int width,
                               int height) {
  using Split = void (*)(const uint8_t *, int, uint8_t *, int, uint8_t *, int, uint8_t *, int,
                         uint8_t *, int, int, int);
  static const auto real = reinterpret_cast<Split>(dlsym(RTLD_NEXT, "SplitARGBPlane"));
  if (!dst_a)
    g_split_without_alpha.fetch_add(1, std::memory_order_relaxed);
  real(src_argb, src_stride_argb, dst_r, dst_stride_r, dst_g, dst_stride_g, dst_b, dst_stride_b,
       dst_a, dst_stride_a, width, height);
}
}  // namespace libyuv

namespace {

constexpr GstVideoFormat kInputs[] = {
    GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_YV12,
    GST_VIDEO_FORMAT_Y42B,
    GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_YUY2,
    GST_VIDEO_FORMAT_UYVY,
    GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGR,
    GST_VIDEO_FORMAT_GRAY8,
    // Deep sources (cpu_deep.hpp).
    GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_NV12_10LE40,
    GST_VIDEO_FORMAT_P012_LE,
    GST_VIDEO_FORMAT_P016_LE,
    GST_VIDEO_FORMAT_I420_12LE,
    GST_VIDEO_FORMAT_I422_10LE,
    GST_VIDEO_FORMAT_I422_12LE,
    GST_VIDEO_FORMAT_Y444_10LE,
    GST_VIDEO_FORMAT_Y444_12LE,
    GST_VIDEO_FORMAT_Y444_16LE,
};
constexpr GstVideoFormat kOutputs[] = {
    GST_VIDEO_FORMAT_RGB,   GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP,
};
constexpr GstVideoOrientationMethod kDirections[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL,
};
constexpr double kMinPsnr = 40.0;
constexpr double kExact = 99.0;  // what psnr() says of identical frames

const char *name(GstVideoFormat format) {
  return gst_video_format_to_string(format);
}

bool rgb_family(GstVideoFormat format) {
  const GstVideoFormatInfo *finfo = gst_video_format_get_info(format);
  return GST_VIDEO_FORMAT_INFO_IS_RGB(finfo);
}

GstVideoInfo video_info(GstVideoFormat format, int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

// A mapped frame that owns its buffer.
class Frame {
 public:
  explicit Frame(const GstVideoInfo &info) : info_(info) {
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, info.size, nullptr);
    gst_video_frame_map(&frame_, &info_, buffer, GST_MAP_READWRITE);
    gst_buffer_unref(buffer);  // the mapping holds it
  }
  Frame(const Frame &) = delete;
  Frame &operator=(const Frame &) = delete;
  ~Frame() { gst_video_frame_unmap(&frame_); }

  GstVideoFrame &get() { return frame_; }
  const GstVideoFrame &get() const { return frame_; }
  GstVideoFormat format() const { return GST_VIDEO_FRAME_FORMAT(&frame_); }
  int width() const { return GST_VIDEO_FRAME_WIDTH(&frame_); }
  int height() const { return GST_VIDEO_FRAME_HEIGHT(&frame_); }
  int n_components() const { return GST_VIDEO_FRAME_N_COMPONENTS(&frame_); }
  uint8_t *at(int comp, int x, int y) const {
    return static_cast<uint8_t *>(GST_VIDEO_FRAME_COMP_DATA(&frame_, comp)) +
           y * GST_VIDEO_FRAME_COMP_STRIDE(&frame_, comp) +
           x * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame_, comp);
  }

 private:
  GstVideoInfo info_;
  GstVideoFrame frame_{};
};

GstStructure *converter_options(const ConvertParams *p = nullptr) {
  GstStructure *s =
      gst_structure_new("options", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
                        GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
                        GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
                        p && p->method == ScaleMethod::Nearest ? GST_VIDEO_RESAMPLER_METHOD_NEAREST
                                                               : GST_VIDEO_RESAMPLER_METHOD_LINEAR,
                        nullptr);
  if (p)
    gst_structure_set(s, GST_VIDEO_CONVERTER_OPT_SRC_X, G_TYPE_INT, p->crop.x,
                      GST_VIDEO_CONVERTER_OPT_SRC_Y, G_TYPE_INT, p->crop.y,
                      GST_VIDEO_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, p->crop.w,
                      GST_VIDEO_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, p->crop.h, nullptr);
  return s;
}

void gst_convert(const GstVideoFrame &in, GstVideoFrame &out, GstStructure *options) {
  GstVideoConverter *c = gst_video_converter_new(const_cast<GstVideoInfo *>(&in.info),
                                                 const_cast<GstVideoInfo *>(&out.info), options);
  fail_unless(c != nullptr);
  gst_video_converter_frame(c, &in, &out);
  gst_video_converter_free(c);
}

// A frame of `format` made by GstVideoConverter from ARGB pixels that
// paint(x, y, argb) writes.
template <typename Paint>
std::unique_ptr<Frame> painted(GstVideoFormat format, int w, int h,
                               const GstVideoColorimetry *colorimetry, Paint paint) {
  Frame argb(video_info(GST_VIDEO_FORMAT_ARGB, w, h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      paint(x, y, argb.at(0, x, y) - 1);  // component 0 is R, byte 1
  GstVideoInfo info = video_info(format, w, h);
  if (colorimetry)
    info.colorimetry = *colorimetry;
  auto out = std::make_unique<Frame>(info);
  gst_convert(argb.get(), out->get(), converter_options());
  return out;
}

// Smooth content, as a camera sees it: a pixel step changes a colour by a
// few levels at most, so scalers that place samples a fraction of a pixel
// apart still agree. Alpha varies only in formats that carry it.
std::unique_ptr<Frame> source(GstVideoFormat format, int w, int h,
                              const GstVideoColorimetry *colorimetry = nullptr) {
  const bool alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA(gst_video_format_get_info(format));
  const double su = 2 * G_PI / std::max(w, 256), sv = 2 * G_PI / std::max(h, 256);
  return painted(format, w, h, colorimetry, [&](int x, int y, uint8_t *p) {
    const double u = (x + 0.5) * su, v = (y + 0.5) * sv;
    p[0] = alpha ? uint8_t(128 + 120 * std::cos(0.5 * u + 0.5 * v)) : 255;
    p[1] = uint8_t(128 + 100 * std::sin(0.8 * u + 0.3 * v + 0.5));
    p[2] = uint8_t(128 + 100 * std::sin(0.4 * u - 0.7 * v + 1.7));
    p[3] = uint8_t(128 + 100 * std::sin(0.6 * u + 0.5 * v + 2.9));
  });
}

// A frame of one grey level.
std::unique_ptr<Frame> uniform(GstVideoFormat format, int w, int h, uint8_t level) {
  return painted(format, w, h, nullptr,
                 [&](int, int, uint8_t *p) { p[0] = 255, p[1] = p[2] = p[3] = level; });
}

// The fill colour as the output's components: R, G, B, A, or for GRAY8 its
// BT.601 full-range luma (GRAY8's colorimetry), rounded.
std::array<uint8_t, 4> fill_components(GstVideoFormat format, const std::array<uint8_t, 4> &fill) {
  if (format != GST_VIDEO_FORMAT_GRAY8)
    return fill;
  return {uint8_t(std::lround(0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2]))};
}

// Content at the output size before the turn, from GstVideoConverter: the
// crop and scale in 8 bits (to AYUV from YUV, to ARGB from RGB; GRAY8 goes
// straight), then the matrix from 16 bits. Its 8-bit YUV matrix is off by
// up to 6 levels (limited-range white comes out 253), its 16-bit one within
// 2 of the exact value, as libyuv is; its 16-bit scaler breaks on 2 -> 1.
std::unique_ptr<Frame> reference_content(const Frame &src, const ConvertParams &p,
                                         GstVideoFormat format) {
  const bool swap = direction_swaps_axes(p.direction);
  const int w = swap ? p.content.h : p.content.w, h = swap ? p.content.w : p.content.h;
  auto out = std::make_unique<Frame>(video_info(format, w, h));
  const GstVideoFormatInfo *in = src.get().info.finfo;
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY(in)) {
    gst_convert(src.get(), out->get(), converter_options(&p));
    return out;
  }
  // GstVideoConverter's UYVY -> AYUV crashes on odd widths; Y42B holds the
  // same samples. Its 16-bit scaler (deep sources) gives garbage from some
  // sizes (3x3 to 9x1, 1.22) and it crops NV12_10LE40 at the wrong column:
  // those are taken to AYUV at their own size first, which drops their low
  // bits only.
  const bool deep = GST_VIDEO_FORMAT_INFO_DEPTH(in, 0) > 8;
  if (src.format() == GST_VIDEO_FORMAT_UYVY || deep) {
    GstVideoInfo planar_info =
        video_info(deep ? GST_VIDEO_FORMAT_AYUV : GST_VIDEO_FORMAT_Y42B, src.width(), src.height());
    planar_info.colorimetry = src.get().info.colorimetry;
    Frame planar(planar_info);
    gst_convert(src.get(), planar.get(), converter_options());
    return reference_content(planar, p, format);
  }
  const bool yuv = GST_VIDEO_FORMAT_INFO_IS_YUV(in);
  GstVideoInfo scaled_info = video_info(yuv ? GST_VIDEO_FORMAT_AYUV : GST_VIDEO_FORMAT_ARGB, w, h);
  GstVideoInfo wide_info = video_info(GST_VIDEO_FORMAT_AYUV64, w, h);
  scaled_info.colorimetry = wide_info.colorimetry = src.get().info.colorimetry;
  Frame scaled(scaled_info);
  gst_convert(src.get(), scaled.get(), converter_options(&p));
  if (!yuv) {
    gst_convert(scaled.get(), out->get(), converter_options());
    return out;
  }
  Frame wide(wide_info);
  gst_convert(scaled.get(), wide.get(), converter_options());
  gst_convert(wide.get(), out->get(), converter_options());
  return out;
}

// GstVideoConverter's result turned and placed with map_output_to_input,
// the definition both backends share, and borders in the fill colour.
std::unique_ptr<Frame> reference(const Frame &src, const ConvertParams &p, GstVideoFormat format,
                                 int w, int h) {
  auto content = reference_content(src, p, format);
  auto out = std::make_unique<Frame>(video_info(format, w, h));
  const auto fill = fill_components(format, p.fill);
  for (int c = 0; c < out->n_components(); ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        *out->at(c, x, y) = fill[c];
  for (int t = 0; t < p.content.h; ++t)
    for (int s = 0; s < p.content.w; ++s) {
      double ix, iy;
      map_output_to_input(p, p.content.x + s + 0.5, p.content.y + t + 0.5, ix, iy);
      const int u =
          std::clamp(int((ix - p.crop.x) * content->width() / p.crop.w), 0, content->width() - 1);
      const int v =
          std::clamp(int((iy - p.crop.y) * content->height() / p.crop.h), 0, content->height() - 1);
      for (int c = 0; c < out->n_components(); ++c)
        *out->at(c, p.content.x + s, p.content.y + t) = *content->at(c, u, v);
    }
  return out;
}

// Over every component of every pixel (padding bytes are no component).
double psnr(const Frame &a, const Frame &b) {
  double sum = 0;
  int64_t n = 0;
  for (int c = 0; c < a.n_components(); ++c)
    for (int y = 0; y < a.height(); ++y)
      for (int x = 0; x < a.width(); ++x, ++n) {
        const double d = double(*a.at(c, x, y)) - *b.at(c, x, y);
        sum += d * d;
      }
  if (sum == 0)
    return kExact;
  return 10 * std::log10(255.0 * 255.0 * n / sum);
}

struct Case {
  GstVideoFormat in = GST_VIDEO_FORMAT_NV12;
  int in_w = 64, in_h = 48;
  GstVideoFormat out = GST_VIDEO_FORMAT_RGB;
  int out_w = 64, out_h = 48;
  bool letterbox = false;
  GstVideoRectangle crop{};
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  ScaleMethod method = ScaleMethod::Bilinear;
  const GstVideoColorimetry *colorimetry = nullptr;
  unsigned threads = 1;

  std::string describe() const {
    gchar *cm = colorimetry ? gst_video_colorimetry_to_string(colorimetry) : nullptr;
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s %dx%d%s%s crop %dx%d+%d+%d -> %s %dx%d%s direction %d %s threads %u",
                  name(in), in_w, in_h, cm ? " " : "", cm ? cm : "", crop.w, crop.h, crop.x, crop.y,
                  name(out), out_w, out_h, letterbox ? " letterbox" : "", int(direction),
                  method == ScaleMethod::Nearest ? "nearest" : "bilinear", threads);
    g_free(cm);
    return text;
  }
};

ConvertParams params_for(const Case &c, const Frame &src) {
  auto planned =
      plan_conversion(c.in_w, c.in_h, c.crop, c.out_w, c.out_h, c.letterbox, c.direction);
  fail_unless(planned.ok(), "%s", planned.ok() ? "" : planned.error().message.c_str());
  ConvertParams p = *planned;
  p.method = c.method;
  p.fill = {30, 200, 90, 160};
  p.matrix = src.get().info.colorimetry.matrix;
  p.range = src.get().info.colorimetry.range;
  p.chroma_site = src.get().info.chroma_site;
  return p;
}

std::unique_ptr<Frame> convert(const Frame &src, const ConvertParams &p, GstVideoFormat format,
                               int w, int h, unsigned threads) {
  auto out = std::make_unique<Frame>(video_info(format, w, h));
  auto done = cpu_convert(src.get(), out->get(), p, threads);
  fail_unless(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
  return out;
}

// The lowest PSNR a test saw, printed at its end for the record.
struct Worst {
  explicit Worst(const char *test) : test(test) {}
  const char *test;
  double psnr = kExact;
  std::string where;
  int cases = 0;
  ~Worst() {
    std::printf("%s: %d cases, lowest PSNR %.1f dB (%s)\n", test, cases, psnr, where.c_str());
  }
  void add(double value, const Case &c) {
    ++cases;
    if (value < psnr)
      psnr = value, where = c.describe();
  }
};

// The last source made: tests loop over outputs for one source.
const Frame &cached_source(const Case &c) {
  static std::unique_ptr<Frame> frame;
  static std::string key;
  gchar *cm = c.colorimetry ? gst_video_colorimetry_to_string(c.colorimetry) : nullptr;
  const std::string wanted = std::string(name(c.in)) + " " + std::to_string(c.in_w) + "x" +
                             std::to_string(c.in_h) + " " + (cm ? cm : "");
  g_free(cm);
  if (!frame || key != wanted) {
    frame = source(c.in, c.in_w, c.in_h, c.colorimetry);
    key = wanted;
  }
  return *frame;
}

// Converts one case and compares it with the reference.
double check(const Case &c, Worst &worst, bool exact = false, double min_psnr = kMinPsnr) {
  const Frame &src = cached_source(c);
  const ConvertParams p = params_for(c, src);
  auto ours = convert(src, p, c.out, c.out_w, c.out_h, c.threads);
  auto theirs = reference(src, p, c.out, c.out_w, c.out_h);
  const double value = psnr(*ours, *theirs);
  worst.add(value, c);
  fail_unless(value >= min_psnr, "%s: PSNR %.1f dB", c.describe().c_str(), value);
  if (exact)
    fail_unless(value == kExact, "%s: not bit-exact (PSNR %.1f dB)", c.describe().c_str(), value);
  return value;
}

}  // namespace

GST_START_TEST(test_every_pair_same_size) {
  Worst worst{"every pair, same size"};
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : kOutputs) {
      Case c;
      c.in = in, c.out = out;
      check(c, worst, rgb_family(in) && rgb_family(out));
    }
}
GST_END_TEST;

GST_START_TEST(test_every_pair_scaled) {
  Worst worst{"every pair, scaled"};
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : kOutputs) {
      Case down;
      down.in = in, down.out = out;
      down.in_w = 160, down.in_h = 96, down.out_w = 64, down.out_h = 64, down.letterbox = true;
      check(down, worst);
      Case up = down;
      up.in_w = 40, up.in_h = 30, up.out_w = 100, up.out_h = 70, up.letterbox = false;
      check(up, worst);
      Case nearest = down;
      nearest.method = ScaleMethod::Nearest;
      check(nearest, worst);
    }
}
GST_END_TEST;

GST_START_TEST(test_odd_sizes) {
  Worst worst{"odd sizes"};
  const GstVideoFormat outs[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRA,
                                 GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBP};
  const int tiny_outputs[][2] = {{1, 1}, {1, 9}, {9, 1}, {5, 5}, {7, 4}};
  for (GstVideoFormat in : kInputs)
    for (int size : {1, 2, 3})
      for (GstVideoFormat out : outs)
        for (const auto &o : tiny_outputs)
          for (bool letterbox : {false, true}) {
            Case c;
            c.in = in, c.out = out, c.in_w = c.in_h = size, c.out_w = o[0], c.out_h = o[1];
            c.letterbox = letterbox;
            check(c, worst);
          }
  // One-pixel rows and columns from a few pixels each.
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : outs)
      for (const auto &s : {std::array{3, 64, 1, 64}, std::array{64, 3, 64, 1}}) {
        Case c;
        c.in = in, c.out = out, c.in_w = s[0], c.in_h = s[1], c.out_w = s[2], c.out_h = s[3];
        check(c, worst);
      }
  // Sampled (sanitized.hpp): each pair at one of the three sizes.
  const OneIn sample(3);
  const std::array<int, 2> large[] = {{640, 640}, {1921, 1081}, {961, 541}};
  for (size_t i = 0; i < std::size(kInputs); ++i)
    for (size_t k = 0; k < std::size(outs); ++k)
      for (size_t l = 0; l < std::size(large); ++l) {
        if (!sample.take(i, k, l))
          continue;
        const auto &o = large[l];
        Case c;
        c.in = kInputs[i], c.out = outs[k], c.in_w = 1921, c.in_h = 1081, c.out_w = o[0],
        c.out_h = o[1];
        c.letterbox = o[0] == 640;
        c.threads = 2;
        check(c, worst);
      }
}
GST_END_TEST;

// 1921 pixels to 1 (and 1081 to 1): bilinear here is libyuv's, two taps
// about the centre (as OpenCV's INTER_LINEAR); GstVideoConverter's linear
// widens its filter with the ratio and averages the whole row. Both are
// right; they differ by a few levels on a row that changes, so this checks
// that every pixel is there and near, not the 40 dB of like filters.
// The exact area average of `full` into w x h, with libyuv's integer box
// edges (output x covers [x * W / w, (x + 1) * W / w)).
std::unique_ptr<Frame> area_average(const Frame &full, int w, int h) {
  auto out = std::make_unique<Frame>(video_info(full.format(), w, h));
  const int fw = full.width(), fh = full.height();
  for (int c = 0; c < full.n_components(); ++c)
    for (int oy = 0; oy < h; ++oy)
      for (int ox = 0; ox < w; ++ox) {
        const int x0 = ox * fw / w, x1 = std::max(x0 + 1, (ox + 1) * fw / w);
        const int y0 = oy * fh / h, y1 = std::max(y0 + 1, (oy + 1) * fh / h);
        double sum = 0;
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x)
            sum += *full.at(c, x, y);
        *out->at(c, ox, oy) = uint8_t(std::lround(sum / ((x1 - x0) * (y1 - y0))));
      }
  return out;
}

// A whole row or column of 1921 or 1081 pixels into one: GstVideoConverter
// weighs only the taps it allows (at most 128 source pixels), so the
// reference is GstVideoConverter at the source size, then the area average
// of all of it, which is what a reduction that does not alias gives.
GST_START_TEST(test_extreme_reduction) {
  Worst worst{"1921x1081 to one row or column"};
  // Sampled (sanitized.hpp): each input to one of the two outputs, each way.
  const OneIn sample(2);
  const GstVideoFormat outs[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY8};
  for (size_t i = 0; i < std::size(kInputs); ++i)
    for (size_t k = 0; k < std::size(outs); ++k) {
      if (!sample.take(i, k))
        continue;
      Case c;
      c.in = kInputs[i], c.out = outs[k], c.in_w = 1921, c.in_h = 1081;
      c.out_w = c.in_w, c.out_h = c.in_h;
      const Frame &src = cached_source(c);
      // The full-size reference, reduced by area for each of the two.
      const auto full = reference(src, params_for(c, src), c.out, c.in_w, c.in_h);
      for (const auto &o : {std::array{1, 64}, std::array{64, 1}}) {
        c.out_w = o[0], c.out_h = o[1];
        auto ours = convert(src, params_for(c, src), c.out, c.out_w, c.out_h, 1);
        const double value = psnr(*ours, *area_average(*full, c.out_w, c.out_h));
        worst.add(value, c);
        fail_unless(value >= 35.0, "%s: PSNR %.1f dB from the area average", c.describe().c_str(),
                    value);
      }
    }
}
GST_END_TEST;

// Boxes of hundreds to tens of thousands of pixels (320x240 to a few
// pixels) keep a flat frame's level: libyuv's box divides by a truncated
// 16-bit reciprocal and came out up to 12% dark there (level 200 as 176).
// Compared with the level itself: GstVideoConverter's own round trip of a
// flat grey is 2 levels off at 40.
GST_START_TEST(test_large_boxes_keep_levels) {
  int largest = 0;
  for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_GRAY8,
                            GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE})
    for (uint8_t level : {uint8_t(40), uint8_t(200)})
      for (const auto &o : {std::array{1, 1}, std::array{2, 2}, std::array{3, 3}, std::array{5, 4},
                            std::array{16, 1}, std::array{1, 12}}) {
        Case c;
        c.in = in, c.out = GST_VIDEO_FORMAT_RGB, c.in_w = 320, c.in_h = 240;
        c.out_w = o[0], c.out_h = o[1];
        auto src = uniform(in, c.in_w, c.in_h, level);
        auto ours = convert(*src, params_for(c, *src), c.out, c.out_w, c.out_h, 1);
        const GstVideoFrame &f = ours->get();
        for (int y = 0; y < c.out_h; ++y) {
          const auto *row = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                            ptrdiff_t(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
          for (int b = 0; b < 3 * c.out_w; ++b) {
            const int error = std::abs(int(row[b]) - int(level));
            largest = std::max(largest, error);
            fail_unless(error <= 2, "%s: byte %d of row %d is %d, level %d", c.describe().c_str(),
                        b, y, row[b], level);
          }
        }
      }
  std::printf("flat frames to a few pixels: largest error %d levels\n", largest);
}
GST_END_TEST;

// Chroma sited as the caps say in every direction: a turned or flipped
// conversion is the identity's output turned or flipped, byte for byte,
// where every scale is exact (cpu_area and the box kernels; libyuv's
// bilinear is not symmetric to the byte). A flip or turn before the scale
// (at the same size) or a vertical flip of the source (before a
// reduction) moves a cosited axis's samples to the other side of their
// pixels; taken as centred, or on the wrong side, the colours would shift
// by a quarter sample against the identity's. 4:2:0 and 4:2:2, chroma
// cosited across (mpeg2) and both ways; the same size (chroma to twice its
// size), and reductions by 3 (the boxes) and by 2.4 x 2.67 (cpu_area).
GST_START_TEST(test_sited_directions) {
  struct Sizes {
    int in_w, in_h;
    std::array<std::array<int, 2>, 3> outs;
  };
  // Even sides, and odd ones, whose reversed axes start with a chroma
  // sample that covers one pixel outside the frame (a pixel further left
  // than the same sample straight).
  const Sizes sizes[] = {{96, 72, {{{96, 72}, {32, 24}, {40, 27}}}},
                         {97, 61, {{{97, 61}, {33, 21}, {131, 83}}}}};
  int cases = 0;
  for (const Sizes &frame : sizes)
    for (GstVideoChromaSite site :
         {GST_VIDEO_CHROMA_SITE_MPEG2, GST_VIDEO_CHROMA_SITE_COSITED, GST_VIDEO_CHROMA_SITE_JPEG})
      for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y42B,
                                GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_P010_10LE}) {
        const int iw = frame.in_w, ih = frame.in_h;
        auto src = source(in, iw, ih);
        for (const auto &size : frame.outs) {
          auto plan = [&](GstVideoOrientationMethod direction) {
            const bool swap = direction_swaps_axes(direction);
            auto planned = plan_conversion(iw, ih, {}, swap ? size[1] : size[0],
                                           swap ? size[0] : size[1], false, direction);
            fail_unless(planned.ok());
            ConvertParams p = *planned;
            p.matrix = GST_VIDEO_COLOR_MATRIX_BT709;
            p.chroma_site = site;
            return p;
          };
          const ConvertParams straight = plan(GST_VIDEO_ORIENTATION_IDENTITY);
          auto identity = convert(*src, straight, GST_VIDEO_FORMAT_RGB, size[0], size[1], 1);
          for (GstVideoOrientationMethod direction : kDirections) {
            const ConvertParams p = plan(direction);
            const int w = p.content.w, h = p.content.h;
            auto turned = convert(*src, p, GST_VIDEO_FORMAT_RGB, w, h, 1);
            for (int t = 0; t < h; ++t)
              for (int s = 0; s < w; ++s) {
                double ix, iy;
                map_output_to_input(p, s + 0.5, t + 0.5, ix, iy);
                const int x = int(ix * size[0] / iw), y = int(iy * size[1] / ih);
                for (int c = 0; c < 3; ++c)
                  fail_unless(*turned->at(c, s, t) == *identity->at(c, x, y),
                              "%s %dx%d, chroma-site %d, to %dx%d, direction %d: pixel %d,%d "
                              "component %d is %d, the identity's %d",
                              name(in), iw, ih, int(site), w, h, int(direction), s, t, c,
                              *turned->at(c, s, t), *identity->at(c, x, y));
              }
            ++cases;
          }
        }
      }
  std::printf("sited chroma in every direction: %d conversions, each its identity turned\n", cases);
}
GST_END_TEST;

// A crop that starts on the second pixel of a chroma pair (odd x, odd y)
// at the same size is the whole frame's conversion cut there: chroma keeps
// its place (it was read from the chroma grid, a pixel to the left). The
// crop's last column and row are left out: past them the whole frame has a
// sample the crop's interpolation does not read.
GST_START_TEST(test_odd_crop_keeps_chroma_in_place) {
  int cases = 0;
  for (GstVideoChromaSite site : {GST_VIDEO_CHROMA_SITE_MPEG2, GST_VIDEO_CHROMA_SITE_JPEG})
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
                              GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_NV12_10LE40})
      for (const GstVideoRectangle &crop :
           {GstVideoRectangle{5, 3, 61, 41}, GstVideoRectangle{1, 0, 96, 61},
            GstVideoRectangle{0, 1, 97, 60}, GstVideoRectangle{7, 9, 2, 2}}) {
        auto src = source(in, 97, 61);
        auto plan = [&](const GstVideoRectangle &c) {
          auto planned =
              plan_conversion(97, 61, c, c.w, c.h, false, GST_VIDEO_ORIENTATION_IDENTITY);
          fail_unless(planned.ok());
          ConvertParams p = *planned;
          p.matrix = GST_VIDEO_COLOR_MATRIX_BT709;
          p.chroma_site = site;
          return p;
        };
        auto whole = convert(*src, plan({0, 0, 97, 61}), GST_VIDEO_FORMAT_RGB, 97, 61, 1);
        auto cut = convert(*src, plan(crop), GST_VIDEO_FORMAT_RGB, crop.w, crop.h, 1);
        for (int y = 0; y + 1 < crop.h; ++y)
          for (int x = 0; x + 1 < crop.w; ++x)
            for (int c = 0; c < 3; ++c)
              fail_unless(*cut->at(c, x, y) == *whole->at(c, crop.x + x, crop.y + y),
                          "%s chroma-site %d, crop %dx%d+%d+%d: pixel %d,%d component %d is %d, "
                          "the whole frame's %d",
                          name(in), int(site), crop.w, crop.h, crop.x, crop.y, x, y, c,
                          *cut->at(c, x, y), *whole->at(c, crop.x + x, crop.y + y));
        ++cases;
      }
  std::printf("odd crops: %d, each the whole frame cut\n", cases);
}
GST_END_TEST;

GST_START_TEST(test_directions) {
  Worst worst{"directions"};
  const GstVideoFormat ins[] = {
      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_I420,        GST_VIDEO_FORMAT_YUY2,
      GST_VIDEO_FORMAT_Y42B,      GST_VIDEO_FORMAT_RGBA,        GST_VIDEO_FORMAT_RGB,
      GST_VIDEO_FORMAT_BGRx,      GST_VIDEO_FORMAT_GRAY8,       GST_VIDEO_FORMAT_P010_10LE,
      GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_NV12_10LE40, GST_VIDEO_FORMAT_I422_12LE};
  const GstVideoFormat outs[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRA,
                                 GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBP};
  for (GstVideoOrientationMethod direction : kDirections)
    for (GstVideoFormat in : ins)
      for (GstVideoFormat out : outs) {
        const bool swap = direction_swaps_axes(direction);
        Case same;
        same.in = in, same.out = out, same.direction = direction;
        same.in_w = 30, same.in_h = 22;
        same.out_w = swap ? 22 : 30, same.out_h = swap ? 30 : 22;
        check(same, worst, rgb_family(in) && rgb_family(out));
        Case down = same;
        down.in_w = 96, down.in_h = 64, down.out_w = 48, down.out_h = 48, down.letterbox = true;
        check(down, worst);
        Case up = same;
        up.in_w = 20, up.in_h = 14, up.out_w = 45, up.out_h = 33;
        check(up, worst);
        Case cropped = down;
        cropped.crop = {9, 5, 61, 37};
        check(cropped, worst);
      }
}
GST_END_TEST;

GST_START_TEST(test_colorimetry) {
  Worst worst{"colorimetry"};
  const GstVideoFormat ins[] = {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,
                                GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YUY2,
                                GST_VIDEO_FORMAT_UYVY};
  const GstVideoColorMatrix matrices[] = {
      GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_MATRIX_BT2020};
  for (GstVideoFormat in : ins)
    for (GstVideoColorMatrix matrix : matrices)
      for (GstVideoColorRange range : {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_RANGE_0_255})
        for (GstVideoFormat out : kOutputs) {
          const GstVideoColorimetry colorimetry{range, matrix, GST_VIDEO_TRANSFER_BT709,
                                                GST_VIDEO_COLOR_PRIMARIES_BT709};
          Case c;
          c.in = in, c.out = out, c.colorimetry = &colorimetry;
          check(c, worst);
          c.out_w = 40, c.out_h = 40, c.letterbox = true;
          check(c, worst);
        }
}
GST_END_TEST;

// Saturated colours, where libyuv's own limited-range tables are up to 13
// levels low in blue: uniform frames of exact Y'CbCr (rounded) decode within
// 3 levels of the colour encoded, in every YUV layout, matrix and range.
GST_START_TEST(test_saturated_colours) {
  const std::array<double, 3> colours[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0},
                                           {0, 1, 1}, {1, 0, 1}, {1, 1, 1}, {0, 0, 0}};
  const GstVideoFormat ins[] = {
      GST_VIDEO_FORMAT_Y444,      GST_VIDEO_FORMAT_NV12,      GST_VIDEO_FORMAT_I420,
      GST_VIDEO_FORMAT_Y42B,      GST_VIDEO_FORMAT_YUY2,      GST_VIDEO_FORMAT_P010_10LE,
      GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_NV12_10LE40};
  int worst = 0;
  for (GstVideoColorMatrix matrix :
       {GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_MATRIX_BT2020})
    for (GstVideoColorRange range : {GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_RANGE_0_255})
      for (const auto &rgb : colours) {
        double kr = 0, kb = 0;
        gst_video_color_matrix_get_Kr_Kb(matrix, &kr, &kb);
        const bool full = range == GST_VIDEO_COLOR_RANGE_0_255;
        const double luma = kr * rgb[0] + (1 - kr - kb) * rgb[1] + kb * rgb[2];
        const double chroma_scale = full ? 255 : 224;
        const uint8_t yuv[3] = {
            uint8_t(std::lround(full ? 255 * luma : 16 + 219 * luma)),
            uint8_t(std::clamp(std::lround(128 + chroma_scale * (rgb[2] - luma) / (2 * (1 - kb))),
                               0L, 255L)),
            uint8_t(std::clamp(std::lround(128 + chroma_scale * (rgb[0] - luma) / (2 * (1 - kr))),
                               0L, 255L))};
        const GstVideoColorimetry colorimetry{range, matrix, GST_VIDEO_TRANSFER_BT709,
                                              GST_VIDEO_COLOR_PRIMARIES_BT709};
        GstVideoInfo y444_info = video_info(GST_VIDEO_FORMAT_Y444, 32, 8);
        y444_info.colorimetry = colorimetry;
        Frame y444(y444_info);
        for (int c = 0; c < 3; ++c)
          for (int y = 0; y < 8; ++y)
            std::memset(y444.at(c, 0, y), yuv[c], 32);
        for (GstVideoFormat in : ins) {
          GstVideoInfo info = video_info(in, 32, 8);
          info.colorimetry = colorimetry;
          Frame src(info);
          gst_convert(y444.get(), src.get(), converter_options());  // uniform: exact
          auto planned = plan_conversion(32, 8, {}, 32, 8, false, GST_VIDEO_ORIENTATION_IDENTITY);
          fail_unless(planned.ok());
          ConvertParams p = *planned;
          p.matrix = matrix, p.range = range;
          auto ours = convert(src, p, GST_VIDEO_FORMAT_RGB, 32, 8, 1);
          for (int c = 0; c < 3; ++c) {
            const int got = *ours->at(c, 17, 5);
            const int error = std::abs(got - int(255 * rgb[c]));
            worst = std::max(worst, error);
            fail_unless(error <= 3, "%s matrix %d range %d colour %g,%g,%g: component %d is %d",
                        name(in), int(matrix), int(range), rgb[0], rgb[1], rgb[2], c, got);
          }
        }
      }
  std::printf("saturated colours: largest error %d levels\n", worst);
}
GST_END_TEST;

// The check on restored tables can fail: libyuv's own capped limited-range
// BT.709 table (Debian's build) does not pass it, its full-range one does;
// on x86, where the table layout is known, every restored table passes.
GST_START_TEST(test_restored_tables) {
  double kr = 0, kb = 0;
  gst_video_color_matrix_get_Kr_Kb(GST_VIDEO_COLOR_MATRIX_BT709, &kr, &kb);
  fail_if(cpu::decodes_exactly({&libyuv::kYuvH709Constants, &libyuv::kYvuH709Constants}, kr, kb,
                               false));
  fail_unless(
      cpu::decodes_exactly({&libyuv::kYuvF709Constants, &libyuv::kYvuF709Constants}, kr, kb, true));
#if defined(__x86_64__) || defined(__i386__)
  for (GstVideoColorMatrix matrix :
       {GST_VIDEO_COLOR_MATRIX_BT601, GST_VIDEO_COLOR_MATRIX_BT709, GST_VIDEO_COLOR_MATRIX_BT2020})
    fail_unless(cpu::exact_limited_range(matrix) != nullptr, "matrix %d", int(matrix));
#endif
}
GST_END_TEST;

GST_START_TEST(test_crop) {
  Worst worst{"crop"};
  const GstVideoRectangle crops[] = {{13, 7, 37, 25}, {2, 4, 40, 30}, {0, 0, 1, 1},
                                     {63, 47, 1, 1},  {1, 0, 63, 48}, {0, 1, 5, 47}};
  const GstVideoFormat outs[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGBA,
                                 GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_BGRP};
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : outs)
      for (const GstVideoRectangle &crop : crops)
        for (bool letterbox : {false, true}) {
          Case c;
          c.in = in, c.out = out, c.crop = crop, c.letterbox = letterbox;
          c.out_w = letterbox ? 50 : 30, c.out_h = letterbox ? 50 : 20;
          check(c, worst);
        }
}
GST_END_TEST;

// Uniform grey content, far from the fill colour: every pixel outside the
// planned content rectangle is exactly the fill colour, every pixel inside
// is not.
GST_START_TEST(test_letterbox_geometry) {
  const std::array<int, 4> geometries[] = {
      {64, 48, 100, 100}, {48, 64, 100, 50},    {100, 20, 30, 30},     {1, 1, 7, 5},
      {3, 200, 50, 50},   {640, 480, 641, 359}, {1921, 1081, 640, 640}};
  // Bytes that differ, and white, whose bytes are all equal in every output
  // format (written as memsets); each for half of the directions.
  const std::array<uint8_t, 4> fills[] = {{255, 0, 255, 77}, {255, 255, 255, 255}};
  int checked = 0;
  for (const auto &g : geometries)
    for (GstVideoFormat in :
         {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_GRAY8}) {
      auto src = uniform(in, g[0], g[1], 128);
      for (GstVideoOrientationMethod direction : kDirections)
        for (GstVideoFormat out : kOutputs) {
          auto planned = plan_conversion(g[0], g[1], {}, g[2], g[3], true, direction);
          fail_unless(planned.ok());
          ConvertParams p = *planned;
          const std::array<uint8_t, 4> &fill = fills[int(direction) % 2];
          p.fill = fill;
          auto ours = convert(*src, p, out, g[2], g[3], 2);
          const auto expected = fill_components(out, fill);
          // The first pixel on the wrong side, if any (one check per case:
          // each passing check is a write to Check's pipe).
          int bad_x = -1, bad_y = -1;
          for (int y = 0; y < g[3] && bad_x < 0; ++y)
            for (int x = 0; x < g[2] && bad_x < 0; ++x) {
              const bool inside = x >= p.content.x && x < p.content.x + p.content.w &&
                                  y >= p.content.y && y < p.content.y + p.content.h;
              bool is_fill = true;
              for (int c = 0; c < ours->n_components(); ++c)
                is_fill = is_fill && *ours->at(c, x, y) == expected[c];
              if (is_fill == inside)
                bad_x = x, bad_y = y;
            }
          fail_unless(bad_x < 0, "%s %dx%d -> %s %dx%d direction %d: pixel (%d, %d) %s", name(in),
                      g[0], g[1], name(out), g[2], g[3], int(direction), bad_x, bad_y,
                      bad_x >= p.content.x ? "inside the content is fill" : "is not fill");
          ++checked;
        }
    }
  std::printf("letterbox geometry: %d cases, borders exact, content where planned\n", checked);
}
GST_END_TEST;

// Helpers change which rows a thread writes, never a byte.
GST_START_TEST(test_threads_agree) {
  struct Job {
    GstVideoFormat in;
    int in_w, in_h;
    GstVideoFormat out;
    int out_w, out_h;
    GstVideoOrientationMethod direction;
  };
  // One frame of each path that splits work: plane scales, ARGB bands,
  // bands of the conversion, turns, upscaling.
  constexpr auto NV12 = GST_VIDEO_FORMAT_NV12, I420 = GST_VIDEO_FORMAT_I420;
  const Job jobs[] = {
      {NV12, 1920, 1080, GST_VIDEO_FORMAT_RGB, 640, 640, GST_VIDEO_ORIENTATION_IDENTITY},
      {I420, 1920, 1080, GST_VIDEO_FORMAT_RGBP, 640, 640, GST_VIDEO_ORIENTATION_IDENTITY},
      {NV12, 1280, 720, GST_VIDEO_FORMAT_BGRP, 416, 416, GST_VIDEO_ORIENTATION_90R},
      {GST_VIDEO_FORMAT_RGBA, 1920, 1080, GST_VIDEO_FORMAT_BGR, 1280, 720,
       GST_VIDEO_ORIENTATION_VERT},
      {GST_VIDEO_FORMAT_RGB, 1280, 720, GST_VIDEO_FORMAT_RGBA, 700, 500,
       GST_VIDEO_ORIENTATION_IDENTITY},
      {GST_VIDEO_FORMAT_YUY2, 1920, 1080, GST_VIDEO_FORMAT_GRAY8, 1920, 1080,
       GST_VIDEO_ORIENTATION_UL_LR},
      {NV12, 960, 540, GST_VIDEO_FORMAT_BGRx, 1921, 1081, GST_VIDEO_ORIENTATION_180},
      // Deep sources: their loads are banded too.
      {GST_VIDEO_FORMAT_P010_10LE, 1920, 1080, GST_VIDEO_FORMAT_RGB, 640, 640,
       GST_VIDEO_ORIENTATION_IDENTITY},
      {GST_VIDEO_FORMAT_I420_10LE, 1280, 720, GST_VIDEO_FORMAT_RGBP, 416, 416,
       GST_VIDEO_ORIENTATION_90R},
      {GST_VIDEO_FORMAT_NV12_10LE40, 1920, 1080, GST_VIDEO_FORMAT_GRAY8, 1920, 1080,
       GST_VIDEO_ORIENTATION_HORIZ},
  };
  for (const Job &j : jobs) {
    auto src = source(j.in, j.in_w, j.in_h);
    auto planned = plan_conversion(j.in_w, j.in_h, {}, j.out_w, j.out_h, true, j.direction);
    fail_unless(planned.ok());
    ConvertParams p = *planned;
    p.matrix = src->get().info.colorimetry.matrix;
    p.range = src->get().info.colorimetry.range;
    auto one = convert(*src, p, j.out, j.out_w, j.out_h, 1);
    for (unsigned threads : {2u, 3u, 4u}) {
      auto many = convert(*src, p, j.out, j.out_w, j.out_h, threads);
      fail_unless(psnr(*one, *many) == kExact, "%s -> %s with %u threads differs", name(j.in),
                  name(j.out), threads);
    }
  }
}
GST_END_TEST;

// Padded strides and offsets (GstVideoMeta from a pool with alignment) are
// honoured on both sides, and no byte outside the output's pixels changes.
GST_START_TEST(test_padded_strides) {
  GstVideoAlignment align;
  gst_video_alignment_reset(&align);
  align.padding_top = 2, align.padding_left = 16, align.padding_right = 40,
  align.padding_bottom = 3;
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : kOutputs) {
      auto plain_src = source(in, 61, 45);
      GstVideoInfo padded_in = video_info(in, 61, 45);
      fail_unless(gst_video_info_align(&padded_in, &align));
      Frame padded_src(padded_in);
      fail_unless(gst_video_frame_copy(&padded_src.get(), &plain_src->get()));
      auto planned =
          plan_conversion(61, 45, {3, 5, 50, 33}, 40, 40, true, GST_VIDEO_ORIENTATION_90L);
      fail_unless(planned.ok());
      auto plain = convert(*plain_src, *planned, out, 40, 40, 1);

      GstVideoInfo padded_out = video_info(out, 40, 40);
      fail_unless(gst_video_info_align(&padded_out, &align));
      Frame padded(padded_out);
      auto *bytes = static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&padded.get(), 0)) -
                    padded_out.offset[0];
      std::memset(bytes, 0xa5, padded_out.size);
      auto done = cpu_convert(padded_src.get(), padded.get(), *planned, 1);
      fail_unless(done.ok());
      fail_unless(psnr(plain.operator*(), padded) == kExact, "%s -> %s: padding changed the result",
                  name(in), name(out));
      // Every byte the frame's rows do not cover still holds the canary.
      std::vector<bool> visible(padded_out.size);
      for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&padded_out); ++plane) {
        const gsize row_bytes = gsize(GST_VIDEO_INFO_COMP_WIDTH(&padded_out, plane)) *
                                GST_VIDEO_INFO_COMP_PSTRIDE(&padded_out, plane);
        for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&padded_out, plane); ++y)
          for (gsize b = 0; b < row_bytes; ++b)
            visible[padded_out.offset[plane] + y * padded_out.stride[plane] + b] = true;
      }
      gsize touched = 0;
      while (touched < padded_out.size && (visible[touched] || bytes[touched] == 0xa5))
        ++touched;
      fail_unless(touched == padded_out.size, "%s -> %s: byte %zu outside the rows written",
                  name(in), name(out), touched);
    }
}
GST_END_TEST;

// RGBx's fourth byte is padding, not alpha: an output with alpha is opaque.
GST_START_TEST(test_padding_is_not_alpha) {
  for (GstVideoFormat in : {GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx})
    for (GstVideoFormat out : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA})
      for (int out_w : {32, 20}) {
        Frame src(video_info(in, 32, 24));
        std::memset(GST_VIDEO_FRAME_PLANE_DATA(&src.get(), 0), 0x40, src.get().info.size);
        auto planned =
            plan_conversion(32, 24, {}, out_w, 24, false, GST_VIDEO_ORIENTATION_IDENTITY);
        fail_unless(planned.ok());
        auto ours = convert(src, *planned, out, out_w, 24, 1);
        for (int y = 0; y < 24; ++y)
          for (int x = 0; x < out_w; ++x)
            fail_unless(*ours->at(GST_VIDEO_COMP_A, x, y) == 255, "%s -> %s %d wide: alpha %d",
                        name(in), name(out), out_w, *ours->at(GST_VIDEO_COMP_A, x, y));
      }
}
GST_END_TEST;

GST_START_TEST(test_refusals) {
  for (GstVideoFormat f : kInputs)
    fail_unless(cpu_supports_input(f), "%s", name(f));
  for (GstVideoFormat f : kOutputs)
    fail_unless(cpu_supports_output(f), "%s", name(f));
  fail_if(cpu_supports_input(GST_VIDEO_FORMAT_AYUV64));
  fail_if(cpu_supports_output(GST_VIDEO_FORMAT_NV12));
  auto planned = plan_conversion(16, 16, {}, 8, 8, false, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(planned.ok());
  const ConvertParams good = *planned;
  Frame nv12(video_info(GST_VIDEO_FORMAT_NV12, 16, 16));
  Frame rgb(video_info(GST_VIDEO_FORMAT_RGB, 8, 8));
  Frame i420_out(video_info(GST_VIDEO_FORMAT_I420, 8, 8));
  Frame ayuv(video_info(GST_VIDEO_FORMAT_AYUV, 16, 16));
  auto refused = [](const Frame &src, Frame &dst, const ConvertParams &p) {
    auto r = cpu_convert(src.get(), dst.get(), p, 1);
    return !r.ok() && r.error().code == EINVAL && !r.error().message.empty();
  };
  fail_unless(refused(ayuv, rgb, good));
  fail_unless(refused(nv12, i420_out, good));
  ConvertParams p = good;
  p.crop = {10, 10, 8, 8};
  fail_unless(refused(nv12, rgb, p), "crop outside the source");
  p = good;
  p.content = {4, 4, 8, 8};
  fail_unless(refused(nv12, rgb, p), "content outside the output");
  p = good;
  p.direction = GST_VIDEO_ORIENTATION_AUTO;
  fail_unless(refused(nv12, rgb, p), "unresolved direction");
  p = good;
  p.matrix = GST_VIDEO_COLOR_MATRIX_RGB;
  fail_unless(refused(nv12, rgb, p), "YUV with the identity matrix");
  fail_unless(cpu_convert(nv12.get(), rgb.get(), good, 1).ok());
}
GST_END_TEST;

// Planar RGB at widths whose last pixels libyuv's split without alpha
// overflows (a multiple of 16 plus 13 to 15), from every kind of source
// row: right, and never through that split.
GST_START_TEST(test_planar_widths) {
  Worst worst{"planar output widths"};
  for (GstVideoFormat in :
       {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420})
    for (GstVideoFormat out : {GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP})
      for (int w : {29, 31, 45, 47, 61}) {
        Case c;
        c.in = in, c.out = out, c.in_w = w, c.in_h = 24, c.out_w = w, c.out_h = 24;
        check(c, worst, rgb_family(in));
        c.in_w = 2 * w + 3;
        check(c, worst);
      }
  fail_unless_equals_int(g_split_without_alpha.load(), 0);
}
GST_END_TEST;

// The box kernels give the rounded mean of the area each output covers,
// exactly, at widths that end in every one of their paths (AVX2, SSSE3, C).
GST_START_TEST(test_box_kernels) {
  const int stride = 6 * 70;
  std::vector<uint8_t> in(size_t(stride) * 30);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t((i * 2654435761u) >> 13);
  auto at = [&](int x, int y) { return int(in[size_t(y) * stride + x]); };
  const int third[2][3] = {{2, 1, 0}, {0, 1, 2}};  // area of a 1.5x output
  for (int w : {1, 4, 5, 8, 9, 13, 16, 17, 29, 31, 45, 61, 70}) {
    std::vector<uint8_t> o(size_t(w) * 10), u(size_t(2 * w) * 20), v(u.size());
    cpu::box3_plane(in.data(), stride, o.data(), w, w, 10);
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < w; ++x) {
        int s = 0;
        for (int r = 0; r < 9; ++r)
          s += at(3 * x + r % 3, 3 * y + r / 3);
        fail_unless_equals_int(o[size_t(y) * w + x], (s + 4) / 9);
      }
    if (2 * w * 6 / 2 > stride)
      continue;
    cpu::box3_uv(in.data(), stride, u.data(), w, v.data(), w, w, 10, false);
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < 2; ++c) {
          int s = 0;
          for (int r = 0; r < 9; ++r)
            s += at(6 * x + 2 * (r % 3) + c, 3 * y + r / 3);
          fail_unless_equals_int((c ? v : u)[size_t(y) * w + x], (s + 4) / 9);
        }
    cpu::box32_uv(in.data(), stride, u.data(), 2 * w, v.data(), 2 * w, w, 10, false);
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 2 * w; ++x)
        for (int c = 0; c < 2; ++c) {
          int s = 0;
          for (int r = 0; r < 9; ++r)
            s += third[x % 2][r % 3] * third[y % 2][r / 3] *
                 at(6 * (x / 2) + 2 * (r % 3) + c, 3 * (y / 2) + r / 3);
          fail_unless_equals_int((c ? v : u)[size_t(y) * 2 * w + x], (s + 4) / 9);
        }
  }
}
GST_END_TEST;

// Once warm, a frame allocates nothing: scratch, helper threads and
// libyuv probes are kept (libyuv's own row buffers are malloc'd inside it).
GST_START_TEST(test_steady_state_allocates_nothing) {
  struct Job {
    GstVideoFormat in;
    GstVideoFormat out;
    int out_w, out_h;
  };
  for (const Job &j : {Job{GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB, 640, 640},
                       Job{GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBP, 416, 416},
                       Job{GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGR, 300, 300}}) {
    auto src = source(j.in, 1920, 1080);
    auto planned =
        plan_conversion(1920, 1080, {}, j.out_w, j.out_h, true, GST_VIDEO_ORIENTATION_IDENTITY);
    fail_unless(planned.ok());
    ConvertParams p = *planned;
    p.matrix = GST_VIDEO_COLOR_MATRIX_BT709;
    Frame dst(video_info(j.out, j.out_w, j.out_h));
    for (int i = 0; i < 3; ++i)
      fail_unless(cpu_convert(src->get(), dst.get(), p, 2).ok());
    const long before = g_allocations.load();
    for (int i = 0; i < 10; ++i)
      fail_unless(cpu_convert(src->get(), dst.get(), p, 2).ok());
    fail_unless_equals_int(g_allocations.load() - before, 0);
  }
}
GST_END_TEST;

// The tensor kernel against the formula in double precision, on rows that
// run its vector path (24 values a round where the CPU has AVX2, FMA and
// F16C) and its tables (the tail), for seeded random settings: quantised
// exactly, float32 and float16 to their precision.
GST_START_TEST(test_tensor_kernel) {
  std::srand(5);
  auto uniform = [](double lo, double hi) {
    return lo + (hi - lo) * (std::rand() / double(RAND_MAX));
  };
  std::vector<uint8_t> in(803);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t((i * 7 + i / 256) % 256);
  for (int round = 0; round < 40; ++round) {
    TensorNorm norm;
    for (int c = 0; c < 3; ++c) {
      norm.mean[c] = round == 0 ? 0 : uniform(-20, 260);
      norm.stddev[c] = round == 0 ? 1 : uniform(0.5, 80);
    }
    norm.quant_scale = round == 0 ? 1 : uniform(0.004, 0.2);
    norm.zero_point = round == 0 ? 0 : int(uniform(-100, 100));
    for (TensorType type :
         {TensorType::Float32, TensorType::Float16, TensorType::Uint8, TensorType::Int8}) {
      TensorNorm n = norm;
      if (type == TensorType::Uint8)
        n.zero_point = std::abs(n.zero_point);
      for (unsigned channels : {3u, 1u}) {
        const cpu::TensorKernel kernel(type, n, channels);
        // The vector path where AVX2 is allowed (EF_CPU_SIMD), the scalar
        // one where it is not.
        if (round == 0)
          fail_unless(kernel.vectorised() ==
                          (cpu::simd() == cpu::Simd::Avx2 && __builtin_cpu_supports("fma") &&
                           __builtin_cpu_supports("f16c")),
                      "the defaults run the %s path at EF_CPU_SIMD level %s",
                      kernel.vectorised() ? "vector" : "scalar", cpu::simd_name(cpu::simd()));
        // The 8-bit values, and the same as floats (a deep source's path),
        // against the same formula.
        std::vector<uint8_t> from_bytes(in.size() * kernel.element_bytes());
        kernel.interleaved(in.data(), from_bytes.data(), in.size());
        std::vector<float> values(in.begin(), in.end());
        std::vector<uint8_t> from_floats(from_bytes.size());
        kernel.interleaved(values.data(), from_floats.data(), values.size());
        for (const std::vector<uint8_t> *results : {&from_bytes, &from_floats}) {
          const std::vector<uint8_t> &out = *results;
          for (size_t i = 0; i < in.size(); ++i) {
            const unsigned c = unsigned(i % channels);
            const double v = (in[i] - n.mean[c]) / n.stddev[c];
            if (type == TensorType::Float32) {
              float got;
              std::memcpy(&got, out.data() + 4 * i, 4);
              fail_unless(std::abs(got - v) <= 1e-5 * std::max(1.0, std::abs(v)), "%zu: %g, %g", i,
                          double(got), v);
            } else if (type == TensorType::Float16) {
              uint16_t h;
              std::memcpy(&h, out.data() + 2 * i, 2);
              const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
              double got = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
              got = (h >> 15) ? -got : got;
              fail_unless(std::abs(got - v) <= std::ldexp(std::max(1.0, std::abs(v)), -10), "%zu",
                          i);
            } else {
              const double lo = type == TensorType::Int8 ? -128 : 0;
              const double hi = type == TensorType::Int8 ? 127 : 255;
              const double want =
                  std::clamp(std::nearbyint(v / n.quant_scale) + n.zero_point, lo, hi);
              const double got = type == TensorType::Int8 ? double(int8_t(out[i])) : out[i];
              // Without the vector path the floats' formula was never
              // checked against the table: a tie may round the other way.
              const bool exact = results == &from_bytes || kernel.vectorised();
              fail_unless(got == want || (!exact && std::abs(got - want) <= 1),
                          "round %d %s: %zu (x %u): %g, the formula %g (vector %d)", round,
                          type == TensorType::Int8 ? "int8" : "uint8", i, in[i], got, want,
                          kernel.vectorised());
            }
          }
        }
      }
    }
  }
}
GST_END_TEST;

// Where a row starts does not change its values: every start in a cache
// line (streamed float32 rows peel values up to a 32-byte address, and
// the vectors after that start on another channel), each entry point
// (bytes, pixels' bytes, floats between the levels), against the same row
// from a cache line's start; float32 stored through the cache (a small
// tensor's) and streamed (a large one's).
GST_START_TEST(test_tensor_kernel_offsets) {
  constexpr size_t kValues = 803;
  std::vector<uint8_t> in(kValues * 4);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t((i * 7 + i / 256) % 256);
  std::vector<float> floats(kValues);
  for (size_t i = 0; i < kValues; ++i)
    floats[i] = float(in[i]) + float(i % 8) / 8;
  TensorNorm norm;
  norm.mean = {123.675, 116.28, 103.53};
  norm.stddev = {58.395, 57.12, 57.375};
  norm.quant_scale = 0.0186;
  norm.zero_point = -14;
  std::vector<uint8_t> memory(kValues * 4 + 128), first(kValues * 4);
  uint8_t *const line = memory.data() + (64 - reinterpret_cast<uintptr_t>(memory.data()) % 64);
  for (TensorType type : {TensorType::Float32, TensorType::Float16, TensorType::Int8})
    for (unsigned channels : {3u, 1u})
      for (size_t tensor_bytes : {size_t(0), SIZE_MAX}) {
        const cpu::TensorKernel kernel(type, norm, channels, tensor_bytes);
        if (kernel.vectorised() && type == TensorType::Float32)
          fail_unless(kernel.streams() == (tensor_bytes != 0));
        const size_t bytes = kernel.element_bytes() * kValues;
        using Call = std::function<void(void *)>;
        const Call calls[] = {
            [&](void *out) { kernel.interleaved(in.data(), out, kValues); },
            [&](void *out) { kernel.plane(in.data(), out, kValues, channels - 1); },
            [&](void *out) { kernel.plane_of_pixels(in.data(), 2, out, kValues, 0); },
            [&](void *out) { kernel.plane_of_pixels(in.data(), 3, out, kValues, channels - 1); },
            [&](void *out) { kernel.interleaved(floats.data(), out, kValues); },
            [&](void *out) { kernel.plane(floats.data(), out, kValues, channels - 1); },
        };
        for (size_t k = 0; k < std::size(calls); ++k) {
          calls[k](line);
          std::memcpy(first.data(), line, bytes);
          for (size_t offset = kernel.element_bytes(); offset < 64;
               offset += kernel.element_bytes()) {
            std::memset(line, 0xa5, bytes + 64);
            calls[k](line + offset);
            fail_unless(std::memcmp(line + offset, first.data(), bytes) == 0,
                        "type %d, %u channels, call %zu: a row %zu bytes into a line differs",
                        int(type), channels, k, offset);
            fail_unless(line[offset - 1] == 0xa5 && line[offset + bytes] == 0xa5,
                        "call %zu at %zu wrote outside its row", k, offset);
          }
        }
      }
}
GST_END_TEST;

// A 10-bit ramp keeps its 10 bits: grey levels a quarter of an 8-bit level
// apart come out of a float tensor between the 8-bit levels, each within
// 0.02 of the exact value of its code, and RGB bytes are that value
// rounded once (never more than half a level off). From P010, I420_10LE
// and NV12_10LE40, at 1:1 and halved (whose means lie between the codes).
GST_START_TEST(test_deep_precision) {
  constexpr int kCodes = 876, kRows = 4;  // limited-range luma 64..939
  const GstVideoColorimetry bt709{GST_VIDEO_COLOR_RANGE_16_235, GST_VIDEO_COLOR_MATRIX_BT709,
                                  GST_VIDEO_TRANSFER_BT709, GST_VIDEO_COLOR_PRIMARIES_BT709};
  GstVideoInfo p010_info = video_info(GST_VIDEO_FORMAT_P010_10LE, kCodes, kRows);
  p010_info.colorimetry = bt709;
  Frame p010(p010_info);
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCodes; ++x)
      reinterpret_cast<uint16_t *>(p010.at(0, 0, y))[x] = uint16_t((64 + x) << 6);
  for (int y = 0; y < kRows / 2; ++y)
    for (int x = 0; x < kCodes; ++x)  // U, V interleaved: neutral
      reinterpret_cast<uint16_t *>(p010.at(1, 0, y))[x] = uint16_t(512 << 6);
  for (GstVideoFormat format :
       {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_NV12_10LE40}) {
    GstVideoInfo info = video_info(format, kCodes, kRows);
    info.colorimetry = bt709;
    Frame src(info);
    gst_convert(p010.get(), src.get(), converter_options());  // the same codes, repacked
    for (int out_w : {kCodes, kCodes / 2}) {
      const int step = kCodes / out_w;
      auto planned =
          plan_conversion(kCodes, kRows, {}, out_w, kRows, false, GST_VIDEO_ORIENTATION_IDENTITY);
      fail_unless(planned.ok());
      ConvertParams p = *planned;
      p.matrix = bt709.matrix, p.range = bt709.range;
      // Output pixel x covers codes 64 + step * x ... + step - 1: their mean.
      auto exact = [&](int x) { return (step * x + (step - 1) / 2.0) * 255.0 / 876; };
      TensorSpec spec;
      spec.width = out_w, spec.height = kRows;
      std::vector<float> tensor(spec.size() / sizeof(float));
      auto done = cpu_convert(
          src.get(), cpu::TensorTarget{reinterpret_cast<uint8_t *>(tensor.data()), spec}, p, 1);
      fail_unless(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
      auto rgb = convert(src, p, GST_VIDEO_FORMAT_RGB, out_w, kRows, 1);
      std::vector<float> between;
      double worst = 0, worst_byte = 0;
      for (int y = 0; y < kRows; ++y)
        for (int x = 0; x < out_w; ++x)
          for (int c = 0; c < 3; ++c) {
            const float v = tensor[(size_t(y) * out_w + x) * 3 + c];
            worst = std::max(worst, std::abs(v - exact(x)));
            worst_byte = std::max(worst_byte, std::abs(*rgb->at(c, x, y) - exact(x)));
            if (std::abs(v - std::round(v)) > 0.1)
              between.push_back(v);
          }
      std::printf(
          "%s %d -> %d: tensor within %.4f of the exact value, %zu values between "
          "8-bit levels; RGB within %.3f\n",
          name(format), kCodes, out_w, worst, between.size(), worst_byte);
      fail_unless(worst < 0.02, "%s -> %d: a tensor value %.4f from the exact value", name(format),
                  out_w, worst);
      // Three codes in four lie off the 8-bit levels (by 0.29 to 0.5).
      fail_unless(between.size() > size_t(kRows * 3 * out_w) / 2,
                  "%s -> %d: only %zu of %d values between 8-bit levels", name(format), out_w,
                  between.size(), kRows * 3 * out_w);
      fail_unless(worst_byte <= 0.5 + 1e-3, "%s -> %d: an RGB byte %.3f from the exact value",
                  name(format), out_w, worst_byte);
    }
  }
}
GST_END_TEST;

// A float tensor's values do not depend on its layout: NCHW (three planes
// made from the colour in one pass where the vector path runs) and NHWC
// (the colour, interleaved, then the kernel) hold the same bits, from an
// 8-bit source (its planes scaled into words) and a 10-bit one, float32
// and float16, at widths that end in every vector tail, letterboxed (the
// border columns beside the content), RGB and BGR order.
GST_START_TEST(test_float_tensor_layouts) {
  for (GstVideoFormat format :
       {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE})
    for (int w : {45, 64, 101})
      for (TensorType type : {TensorType::Float32, TensorType::Float16})
        for (bool bgr : {false, true}) {
          const auto src = painted(format, 193, 97, nullptr, [](int x, int y, uint8_t *argb) {
            argb[0] = 255;
            argb[1] = uint8_t(x * 5 + y);
            argb[2] = uint8_t((x / 3) % 2 ? 230 : 20);
            argb[3] = uint8_t(y * 7 + x / 2);
          });
          auto planned =
              plan_conversion(193, 97, {}, guint(w), 40, true, GST_VIDEO_ORIENTATION_IDENTITY);
          fail_unless(planned.ok());
          ConvertParams p = *planned;
          p.norm.bgr = bgr;
          p.norm.mean = {123.675, 116.28, 103.53};
          p.norm.stddev = {58.395, 57.12, 57.375};
          TensorSpec spec;
          spec.width = w, spec.height = 40, spec.type = type;
          std::vector<uint8_t> layouts[2];
          for (int k = 0; k < 2; ++k) {
            spec.layout = k ? TensorLayout::Nchw : TensorLayout::Nhwc;
            layouts[k].assign(spec.size(), 0);
            auto done = cpu_convert(src->get(), cpu::TensorTarget{layouts[k].data(), spec}, p, 1);
            fail_unless(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
          }
          const size_t bytes = spec.element_bytes(), pixels = size_t(w) * 40;
          for (size_t i = 0; i < pixels; ++i)
            for (size_t c = 0; c < 3; ++c)
              fail_unless(std::memcmp(&layouts[0][(i * 3 + c) * bytes],
                                      &layouts[1][(c * pixels + i) * bytes], bytes) == 0,
                          "%s -> %d wide, type %d, bgr %d: pixel %zu channel %zu differs",
                          name(format), w, int(type), bgr, i, c);
        }
}
GST_END_TEST;

static Suite *cpu_converter_suite() {
  Suite *s = suite_create("cpu_converter");
  TCase *tc = tcase_create("general");
  tcase_add_test(tc, test_every_pair_same_size);
  tcase_add_test(tc, test_every_pair_scaled);
  tcase_add_test(tc, test_odd_sizes);
  tcase_add_test(tc, test_extreme_reduction);
  tcase_add_test(tc, test_large_boxes_keep_levels);
  tcase_add_test(tc, test_directions);
  tcase_add_test(tc, test_sited_directions);
  tcase_add_test(tc, test_odd_crop_keeps_chroma_in_place);
  tcase_add_test(tc, test_colorimetry);
  tcase_add_test(tc, test_saturated_colours);
  tcase_add_test(tc, test_restored_tables);
  tcase_add_test(tc, test_crop);
  tcase_add_test(tc, test_letterbox_geometry);
  tcase_add_test(tc, test_threads_agree);
  tcase_add_test(tc, test_padded_strides);
  tcase_add_test(tc, test_padding_is_not_alpha);
  tcase_add_test(tc, test_planar_widths);
  tcase_add_test(tc, test_box_kernels);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_steady_state_allocates_nothing);
  tcase_add_test(tc, test_tensor_kernel);
  tcase_add_test(tc, test_tensor_kernel_offsets);
  tcase_add_test(tc, test_float_tensor_layouts);
  tcase_add_test(tc, test_deep_precision);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  gst_check_init(&argc, &argv);
  if (const int skip = ef::test::skip_unless_simd_as_asked())
    return skip;
  return gst_check_run_suite(cpu_converter_suite(), "cpu_converter", __FILE__);
}
