// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensors.hpp"

#include <gst/check/gstharness.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "frames.hpp"
#include "harness.hpp"

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

namespace ef::test {

GstVideoInfo video_info(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

GstBuffer *zone_plate_frame(const GstVideoInfo &info) {
  const gint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  GstVideoInfo rgba = video_info(GST_VIDEO_FORMAT_RGBA, guint(w), guint(h));
  GstBuffer *src = gst_buffer_new_allocate(nullptr, rgba.size, nullptr);
  GstMapInfo map;
  gst_buffer_map(src, &map, GST_MAP_WRITE);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x) {
      guint8 *p = map.data + gsize(y) * GST_VIDEO_INFO_PLANE_STRIDE(&rgba, 0) + gsize(x) * 4;
      const double dx = x - w / 2.0, dy = y - h / 2.0;
      p[0] = guint8(127.5 + 127.5 * std::cos(M_PI * (dx * dx + dy * dy) / (w + h)));
      p[1] = guint8((x / 7) % 2 ? 230 : 20);
      p[2] = guint8(((x + y) / 11) % 3 * 120);
      p[3] = 255;
    }
  gst_buffer_unmap(src, &map);
  return from_rgba(src, info);
}

GstBuffer *from_rgba(GstBuffer *src, const GstVideoInfo &info) {
  GstVideoInfo rgba = video_info(GST_VIDEO_FORMAT_RGBA, guint(GST_VIDEO_INFO_WIDTH(&info)),
                                 guint(GST_VIDEO_INFO_HEIGHT(&info)));
  rgba.fps_n = info.fps_n, rgba.fps_d = info.fps_d;
  GstBuffer *out = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame in_frame, out_frame;
  GstVideoInfo out_info = info;
  fail_unless(gst_video_frame_map(&in_frame, &rgba, src, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&out_frame, &out_info, out, GST_MAP_WRITE));
  GstVideoConverter *conv = gst_video_converter_new(&rgba, &out_info, nullptr);
  gst_video_converter_frame(conv, &in_frame, &out_frame);
  gst_video_converter_free(conv);
  gst_video_frame_unmap(&in_frame);
  gst_video_frame_unmap(&out_frame);
  gst_buffer_unref(src);
  return out;
}

GstBuffer *zone_plate_memfd(const GstVideoInfo &info) {
  GstBuffer *source = zone_plate_frame(info);
  GstBuffer *frame = memfd_frame(info, 0);
  GstMapInfo from, to;
  fail_unless(gst_buffer_map(source, &from, GST_MAP_READ));
  fail_unless(gst_buffer_map(frame, &to, GST_MAP_WRITE));
  std::memcpy(to.data, from.data, std::min(from.size, to.size));
  gst_buffer_unmap(frame, &to);
  gst_buffer_unmap(source, &from);
  gst_buffer_unref(source);
  return frame;
}

std::string caps_text(const GstVideoInfo &info) {
  GstCaps *caps = caps_for(info);
  gchar *text = gst_caps_to_string(caps);
  std::string s = text;
  g_free(text);
  gst_caps_unref(caps);
  return s;
}

std::vector<TensorNormCase> norms_for(const std::string &type, bool gray) {
  std::vector<TensorNormCase> norms{TensorNormCase{}};
  TensorNormCase n;
  if (gray) {
    n.mean = {118.5, 118.5, 118.5};
    n.stddev = {61.25, 61.25, 61.25};
    n.props = "mean=<118.5> std=<61.25>";
  } else {
    n.mean = {123.675, 116.28, 103.53};
    n.stddev = {58.395, 57.12, 57.375};
    n.props = "mean=<123.675,116.28,103.53> std=<58.395,57.12,57.375>";
  }
  if (is_quantised(type)) {
    n.quant_scale = 0.0171;
    n.zero_point = type == "int8" ? -7 : 131;
    n.props += " quant-scale=0.0171 quant-zero-point=" + std::to_string(n.zero_point);
  }
  norms.push_back(n);
  return norms;
}

std::vector<TensorCase> shapes_of(const GstVideoInfo &in, guint w, guint h, bool letterbox,
                                  const std::string &type) {
  std::vector<TensorCase> cases;
  for (int shape = 0; shape < 5; ++shape)
    cases.push_back({in, w, h, letterbox, type, shape == 2 || shape == 3, shape == 1 || shape == 3,
                     shape == 4});
  return cases;
}

std::string tensor_dims(const TensorCase &c) {
  const std::string ch = c.gray ? "1" : "3";
  const std::string w = std::to_string(c.w), h = std::to_string(c.h);
  return c.nchw ? w + ":" + h + ":" + ch + ":1" : ch + ":" + w + ":" + h + ":1";
}

std::string tensor_caps(const TensorCase &c, const char *feature) {
  return std::string("other/tensors") + (feature ? std::string("(") + feature + ")" : "") +
         ", format=static, num_tensors=1, types=" + c.type + ", dimensions=" + tensor_dims(c);
}

std::string letterbox_props(const TensorCase &c) {
  return std::string("letterbox=") + (c.letterbox ? "true" : "false") + " fill-color=0xff336699";
}

std::string tensor_props(const TensorCase &c, const TensorNormCase &n) {
  return letterbox_props(c) + " channel-order=" + (c.bgr ? "bgr" : "rgb") + " " + n.props;
}

gsize element_bytes(const std::string &type) {
  return type == "float32" ? 4 : type == "float16" ? 2 : 1;
}

bool is_quantised(const std::string &type) {
  return type == "uint8" || type == "int8";
}

namespace {

float half_to_float(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
  return float(sign ? -v : v);
}

}  // namespace

double tensor_element(const guint8 *data, const std::string &type, gsize i) {
  if (type == "float32") {
    float f;
    std::memcpy(&f, data + 4 * i, 4);
    return f;
  }
  if (type == "float16") {
    uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    return half_to_float(h);
  }
  if (type == "int8")
    return double(int8_t(data[i]));
  return data[i];
}

gsize tensor_index(const TensorCase &c, guint x, guint y, guint k) {
  const guint channels = c.gray ? 1 : 3;
  return c.nchw ? (gsize(k) * c.h + y) * c.w + x : (gsize(y) * c.w + x) * channels + k;
}

double quantise(double normalised, const TensorNormCase &n, const std::string &type) {
  const int low = type == "int8" ? -128 : 0, high = type == "int8" ? 127 : 255;
  return std::clamp(std::nearbyint(normalised / n.quant_scale) + n.zero_point, double(low),
                    double(high));
}

namespace {
GstContext *shared_context = nullptr;
}

void share_with_harnesses(GstContext *context) {
  if (context)
    gst_context_ref(context);
  if (shared_context)
    gst_context_unref(shared_context);
  shared_context = context;
}

GstBuffer *convert_one(const std::string &element, const std::string &in_caps,
                       const std::string &out_caps, GstBuffer *frame,
                       const std::function<void(GstHarness *)> &prepare) {
  GstHarness *h = gst_harness_new_parse(element.c_str());
  if (shared_context)
    gst_element_set_context(h->element, shared_context);
  if (prepare)
    prepare(h);
  gst_harness_set_caps_str(h, in_caps.c_str(), out_caps.c_str());
  GstBus *bus = attach_bus(h);
  const GstFlowReturn ret = gst_harness_push(h, gst_buffer_ref(frame));
  const std::string error = pop_error(bus);
  fail_unless(ret == GST_FLOW_OK, "%s -> %s (%s): %s", in_caps.c_str(), out_caps.c_str(),
              element.c_str(), error.c_str());
  GstBuffer *out = gst_harness_pull(h);
  release_bus(bus);
  gst_harness_teardown(h);
  return out;
}

}  // namespace ef::test
