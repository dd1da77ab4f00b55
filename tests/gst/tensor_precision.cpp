// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "box_reference.hpp"

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

namespace ef::test {

namespace {

// The info as the element reads it from its caps (the colorimetry and
// chroma site a size implies), which the reference must decode by too.
GstVideoInfo negotiated(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info = video_info(format, w, h);
  info.fps_n = 30, info.fps_d = 1;
  GstCaps *caps = gst_video_info_to_caps(&info);
  fail_unless(gst_video_info_from_caps(&info, caps));
  gst_caps_unref(caps);
  return info;
}

// A small generator of our own: the same frames on every host.
struct Lcg {
  guint32 state;
  guint32 next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  int below(int n) { return int(next() % guint32(n)); }
};

// Text: a coloured patch every 40 x 30 pixels, over it characters in cells
// of 7 x 11 pixels, each a few strokes one to three pixels wide (rows and
// columns of a cell, as a bitmap font's) in a contrasting colour; RGBA,
// converted by GstVideoConverter into `info`'s format.
GstBuffer *text_frame(const GstVideoInfo &info) {
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  std::vector<guint8> px(gsize(w) * h * 4, 255);
  Lcg lcg{7};
  const guint8 patches[4][3] = {{250, 250, 245}, {20, 30, 90}, {200, 60, 40}, {240, 210, 60}};
  const guint8 inks[4][3] = {{10, 10, 10}, {255, 255, 255}, {0, 90, 200}, {120, 0, 110}};
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x) {
      const int patch = (x / 40 + 3 * (y / 30)) % 4;
      std::memcpy(&px[(gsize(y) * w + x) * 4], patches[patch], 3);
    }
  for (gint cy = 0; cy + 11 <= h; cy += 11)
    for (gint cx = 0; cx + 7 <= w; cx += 7) {
      const int patch = (cx / 40 + 3 * (cy / 30)) % 4;
      const guint8 *ink = inks[(patch + 1 + lcg.below(3)) % 4];
      for (int stroke = 1 + lcg.below(3); stroke > 0; --stroke) {
        const bool across = lcg.below(2);
        const int width = 1 + lcg.below(3), at = lcg.below(across ? 9 : 5);
        for (int dy = 0; dy < 11; ++dy)
          for (int dx = 0; dx < 7; ++dx) {
            const int pos = across ? dy : dx;
            if (pos >= at && pos < at + width)
              std::memcpy(&px[(gsize(cy + dy) * w + cx + dx) * 4], ink, 3);
          }
      }
    }
  return from_rgba(gst_buffer_new_wrapped(g_memdup2(px.data(), px.size()), px.size()), info);
}

// A new frame of `info`, mapped for writing until done() hands it over.
struct NewFrame {
  GstVideoInfo info;
  GstBuffer *buffer;
  GstVideoFrame f{};
  explicit NewFrame(const GstVideoInfo &of)
      : info(of), buffer(gst_buffer_new_allocate(nullptr, of.size, nullptr)) {
    fail_unless(gst_video_frame_map(&f, &info, buffer, GST_MAP_WRITE));
  }
  GstBuffer *done() {
    gst_video_frame_unmap(&f);
    return buffer;
  }
};

// Every sample of every component its own value within the range.
GstBuffer *noise_frame(const GstVideoInfo &info) {
  NewFrame frame(info);
  const GstVideoFrame &f = frame.f;
  Lcg lcg{11};
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c)
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&f, c); ++y) {
      auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_COMP_DATA(&f, c)) +
                  gsize(y) * GST_VIDEO_FRAME_COMP_STRIDE(&f, c);
      for (gint x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&f, c); ++x)
        row[gsize(x) * GST_VIDEO_FRAME_COMP_PSTRIDE(&f, c)] = guint8(16 + lcg.below(c ? 225 : 220));
    }
  return frame.done();
}

// P010: luma ramps across through every 10-bit code of its range, U down
// and V across through the middle half of theirs (colours within gamut).
GstBuffer *p010_gradient(const GstVideoInfo &info) {
  NewFrame frame(info);
  const GstVideoFrame &f = frame.f;
  // Word `word` of row y of plane p (plane 1: U, V pairs).
  auto put = [&](guint p, gint word, gint y, int code) {
    auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, p)) +
                gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
    const guint16 bits = guint16(code << 6);
    std::memcpy(row + 2 * gsize(word), &bits, 2);
  };
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x)
      put(0, x, y, std::min(940, 64 + (x * 876 + y * 3) / std::max(w - 1, 1)));
  const gint cw = GST_VIDEO_FRAME_COMP_WIDTH(&f, 1), ch = GST_VIDEO_FRAME_COMP_HEIGHT(&f, 1);
  for (gint y = 0; y < ch; ++y)
    for (gint x = 0; x < cw; ++x) {
      put(1, 2 * x, y, 288 + y * 448 / std::max(ch - 1, 1));
      put(1, 2 * x + 1, y, 288 + x * 448 / std::max(cw - 1, 1));
    }
  return frame.done();
}

double half_ulp(double v) {
  const double a = std::abs(v);
  if (a < 0x1p-14)
    return 0x1p-24;
  return std::ldexp(1.0, int(std::floor(std::log2(a))) - 10);
}

// The case's channel k at (x, y) of tensor `data`.
double value_at(const PrecisionCase &c, const guint8 *data, guint x, guint y, guint k) {
  return tensor_element(data, c.tensor.type, tensor_index(c.tensor, x, y, k));
}

}  // namespace

std::vector<PrecisionCase> precision_cases() {
  struct Source {
    const char *frame;
    GstVideoFormat format;
  };
  const Source sources[] = {{"text", GST_VIDEO_FORMAT_NV12},
                            {"text", GST_VIDEO_FORMAT_I420},
                            {"noise", GST_VIDEO_FORMAT_NV12},
                            {"gradient", GST_VIDEO_FORMAT_P010_10LE}};
  const std::pair<guint, guint> sizes[] = {{160, 120}, {128, 96}, {107, 79}};
  std::vector<PrecisionCase> cases;
  for (const Source &s : sources)
    for (const auto &[w, h] : sizes) {
      if (s.format == GST_VIDEO_FORMAT_P010_10LE && w == 128)
        continue;
      for (const char *type : {"float32", "float16"})
        for (int shape = 0; shape < 2; ++shape) {
          const bool nchw = shape == 1, bgr = shape == 1;
          const TensorCase t{negotiated(s.format, 320, 240), w, h, false, type, nchw, bgr, false};
          for (const TensorNormCase &n : norms_for(type, false)) {
            const std::string what = std::string(s.frame) + " " +
                                     gst_video_format_to_string(s.format) + " 320x240 -> " + type +
                                     " " + tensor_dims(t) + (bgr ? " bgr" : "") +
                                     (n.props.empty() ? "" : " " + n.props);
            cases.push_back({s.frame, t, n, what});
          }
        }
    }
  return cases;
}

GstBuffer *precision_frame(const PrecisionCase &c) {
  if (c.frame == "text")
    return text_frame(c.tensor.in);
  if (c.frame == "noise")
    return noise_frame(c.tensor.in);
  return p010_gradient(c.tensor.in);
}

Precision precision_of(const PrecisionCase &c, GstBuffer *frame,
                       const std::vector<guint8> &tensor) {
  const TensorCase &t = c.tensor;
  fail_unless_equals_uint64(tensor.size(), gsize(t.w) * t.h * 3 * element_bytes(t.type));
  GstVideoFrame src;
  GstVideoInfo info = t.in;
  fail_unless(gst_video_frame_map(&src, &info, frame, GST_MAP_READ));
  const BoxImage ref = box_reference(src, {0, 0, info.width, info.height}, int(t.w), int(t.h));
  gst_video_frame_unmap(&src);
  const bool half = t.type == "float16";
  Precision p;
  std::set<double> values;
  size_t fractional = 0;
  for (guint y = 0; y < t.h; ++y)
    for (guint x = 0; x < t.w; ++x)
      for (guint k = 0; k < 3; ++k) {
        const double exact_level =
            std::clamp(ref.at(int(x), int(y))[t.bgr ? 2 - k : k], 0.0, 255.0);
        const double exact = (exact_level - c.norm.mean[k]) / c.norm.stddev[k];
        const double got = value_at(c, tensor.data(), x, y, k);
        const double off =
            std::max(0.0, std::abs(got - exact) - (half ? half_ulp(exact) / 2 : 0.0));
        const double levels = off * c.norm.stddev[k];
        p.mean += levels;
        p.worst = std::max(p.worst, levels);
        const double level = got * c.norm.stddev[k] + c.norm.mean[k];
        fractional += std::abs(level - std::round(level)) > 0.01;
        values.insert(got);
      }
  const double n = double(t.w) * t.h * 3;
  p.mean /= n;
  p.fractional = double(fractional) / n;
  p.distinct = values.size();
  return p;
}

std::vector<std::vector<guint8>> check_precision(const std::string &element) {
  std::vector<std::vector<guint8>> tensors;
  std::string failure;  // the first
  std::printf("%s: levels from the exact values (mean, worst), fractional, distinct:\n",
              element.c_str());
  for (const PrecisionCase &c : precision_cases()) {
    GstBuffer *frame = precision_frame(c);
    GstBuffer *out = convert_one(element + " " + tensor_props(c.tensor, c.norm),
                                 caps_text(c.tensor.in), tensor_caps(c.tensor), frame);
    GstMapInfo map;
    fail_unless(gst_buffer_map(out, &map, GST_MAP_READ));
    tensors.emplace_back(map.data, map.data + map.size);
    gst_buffer_unmap(out, &map);
    gst_buffer_unref(out);
    const Precision p = precision_of(c, frame, tensors.back());
    gst_buffer_unref(frame);
    std::printf("  %.4f %.4f %5.1f %% %6zu  %s\n", p.mean, p.worst, 100 * p.fractional, p.distinct,
                c.what.c_str());
    char figures[160];
    std::snprintf(figures, sizeof figures,
                  ": %.4f levels from the exact values on average, %.4f at worst", p.mean, p.worst);
    if (failure.empty() && !(p.mean <= kMeanBound && p.worst <= kWorstBound))
      failure = c.what + figures;
    // A 10-bit source's values lie between the 8-bit levels.
    if (failure.empty() && c.frame == "gradient" && c.tensor.type == "float32" &&
        !(p.fractional > 0.5 && p.distinct > 3 * 256))
      failure = c.what + ": " + std::to_string(p.fractional) + " of the values between levels, " +
                std::to_string(p.distinct) + " distinct";
  }
  fail_unless(failure.empty(), "%s (bounds %g, %g)", failure.c_str(), kMeanBound, kWorstBound);
  return tensors;
}

Precision levels_apart(const PrecisionCase &c, const std::vector<guint8> &a,
                       const std::vector<guint8> &b) {
  const TensorCase &t = c.tensor;
  Precision p;
  for (guint y = 0; y < t.h; ++y)
    for (guint x = 0; x < t.w; ++x)
      for (guint k = 0; k < 3; ++k) {
        const double d = std::abs(value_at(c, a.data(), x, y, k) - value_at(c, b.data(), x, y, k)) *
                         c.norm.stddev[k];
        p.mean += d;
        p.worst = std::max(p.worst, d);
      }
  p.mean /= double(t.w) * t.h * 3;
  return p;
}

}  // namespace ef::test
