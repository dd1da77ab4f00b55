// SPDX-License-Identifier: LGPL-2.1-or-later
// The size sweep: every element and backend at the sizes where conversions
// and imports break (1-pixel sides, rows that are no multiple of 4 or 16
// bytes, odd chroma, 4095-pixel lines, padded input strides), each case a
// pipeline through appsrc and appsink whose every output is checked against
// GstVideoConverter (efconvert) or byte for byte (efupload, efvkbridge).
// Groups (argv[1]): efconvert-gl, efconvert-gl-syspool, efconvert-cpu,
// efupload, efvkbridge; tensors in efconvert-cpu and efconvert-gl.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gst/ef/gstef.h>

#include "content.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "stress.hpp"

using namespace ef::stress;

namespace {

constexpr int kOutputWaitMs = 3000;
// The first frame also sets GL up and compiles the shader variant for the
// geometry, which llvmpipe's JIT takes seconds for on a busy 2-core machine.
constexpr int kFirstOutputWaitMs = 20000;
int output_wait_ms(guint frame) {
  return frame == 0 ? kFirstOutputWaitMs : kOutputWaitMs;
}
constexpr double kMinPsnr = 30.0;

struct Size {
  GstVideoFormat format;
  guint width, height;
};

GstVideoInfo out_info_of(GstSample *sample) {
  GstVideoInfo info;
  if (!ef::test::video_info_of(gst_sample_get_caps(sample), &info))
    fail_case("the output caps are no video caps");
  return info;
}

std::string caps_text(GstVideoFormat format, guint width, guint height) {
  return std::string("video/x-raw,format=") + gst_video_format_to_string(format) +
         ",width=" + std::to_string(width) + ",height=" + std::to_string(height);
}

// `frames` frames of `in` through `element_text` to `out`, each output
// within kMinPsnr of GstVideoConverter's.
void convert_case(const std::string &element_text, const GstVideoInfo &in, Memory memory,
                  const Size &out, bool system_pool_downstream) {
  Pipeline p("appsrc name=src format=time ! " + element_text + " ! " +
             caps_text(out.format, out.width, out.height) + " ! appsink name=sink sync=false");
  if (element_text.find("backend=gl") != std::string::npos)
    p.share_gl_display();
  if (system_pool_downstream) {
    GstPad *pad = gst_element_get_static_pad(p.element("sink"), "sink");
    ef::test::offer_pool_on_pad(pad, nullptr, 4);
    gst_object_unref(pad);
  }
  p.set_caps(ef::test::caps_for(in));
  p.set_state(GST_STATE_PLAYING);
  const std::string what = describe(in) + " -> " + caps_text(out.format, out.width, out.height);
  const guint frames = 3 * guint(scale());
  for (guint n = 0; n < frames; ++n) {
    GstBuffer *frame = ramp_frame(in, memory, n);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    p.push(gst_buffer_ref(frame));
    GstSample *sample = p.pull(output_wait_ms(n));
    if (!sample) {
      gst_buffer_unref(frame);
      fail_case(what + ": no output for frame " + std::to_string(n) + " within " +
                std::to_string(output_wait_ms(n)) + " ms (hang or error)\n" + p.errors());
    }
    GstVideoInfo got_info = out_info_of(sample);
    GstBuffer *want = reference(frame, in, got_info);
    const double db = psnr(gst_sample_get_buffer(sample), got_info, want, got_info);
    gst_buffer_unref(want);
    gst_sample_unref(sample);
    gst_buffer_unref(frame);
    if (db < kMinPsnr)
      fail_case(what + ": frame " + std::to_string(n) + " is " + std::to_string(db) +
                " dB from GstVideoConverter (at least " + std::to_string(kMinPsnr) + " wanted)");
  }
  // Warnings are allowed (a declined import says why, by design).
  p.poll_bus();
  if (p.has_error())
    fail_case(what + ": errors on the bus:\n" + p.errors());
}

// Output sizes from a 320x240 NV12 frame: where the GL backend's render
// target met fd-backed output rows of no multiple of 16 bytes.
const std::vector<Size> &output_sizes() {
  static const std::vector<Size> sizes = {
      {GST_VIDEO_FORMAT_RGB, 300, 300}, {GST_VIDEO_FORMAT_RGB, 299, 299},
      {GST_VIDEO_FORMAT_RGB, 224, 224}, {GST_VIDEO_FORMAT_RGB, 100, 100},
      {GST_VIDEO_FORMAT_RGB, 4, 4},     {GST_VIDEO_FORMAT_RGB, 5, 5},
      {GST_VIDEO_FORMAT_RGB, 6, 6},     {GST_VIDEO_FORMAT_RGB, 7, 7},
      {GST_VIDEO_FORMAT_RGB, 8, 8},     {GST_VIDEO_FORMAT_RGB, 9, 9},
      {GST_VIDEO_FORMAT_RGB, 12, 12},   {GST_VIDEO_FORMAT_RGB, 20, 20},
      {GST_VIDEO_FORMAT_RGB, 24, 24},   {GST_VIDEO_FORMAT_RGB, 33, 33},
      {GST_VIDEO_FORMAT_RGB, 8, 64},    {GST_VIDEO_FORMAT_RGB, 1, 1},
      {GST_VIDEO_FORMAT_RGB, 2, 2},     {GST_VIDEO_FORMAT_RGB, 3, 3},
      {GST_VIDEO_FORMAT_RGB, 7, 5},     {GST_VIDEO_FORMAT_RGB, 17, 9},
      {GST_VIDEO_FORMAT_RGB, 4095, 1},  {GST_VIDEO_FORMAT_RGB, 1, 4095},
      {GST_VIDEO_FORMAT_BGR, 299, 299}, {GST_VIDEO_FORMAT_RGBA, 6, 6},
      {GST_VIDEO_FORMAT_RGBA, 10, 10},  {GST_VIDEO_FORMAT_BGRx, 7, 5},
      {GST_VIDEO_FORMAT_GRAY8, 8, 8},   {GST_VIDEO_FORMAT_GRAY8, 20, 20},
      {GST_VIDEO_FORMAT_GRAY8, 7, 5},   {GST_VIDEO_FORMAT_RGBP, 8, 8},
      {GST_VIDEO_FORMAT_RGBP, 7, 5},    {GST_VIDEO_FORMAT_BGRP, 224, 224},
  };
  return sizes;
}

// Inputs of odd sizes, width-1 packed YUV and rows of no multiple of 16 bytes,
// each converted to RGB at its own size.
const std::vector<Size> &input_sizes() {
  static const std::vector<Size> sizes = {
      {GST_VIDEO_FORMAT_NV12, 33, 17},
      {GST_VIDEO_FORMAT_NV12, 1, 1},
      {GST_VIDEO_FORMAT_I420, 7, 5},
      {GST_VIDEO_FORMAT_I420, 1, 4095},
      {GST_VIDEO_FORMAT_YUY2, 1, 1},
      {GST_VIDEO_FORMAT_YUY2, 1, 2},
      {GST_VIDEO_FORMAT_YUY2, 1, 4095},
      {GST_VIDEO_FORMAT_YUY2, 3, 3},
      {GST_VIDEO_FORMAT_UYVY, 1, 1},
      {GST_VIDEO_FORMAT_UYVY, 1, 2},
      {GST_VIDEO_FORMAT_UYVY, 1, 4095},
      {GST_VIDEO_FORMAT_UYVY, 5, 3},
      {GST_VIDEO_FORMAT_RGB, 7, 5},
      {GST_VIDEO_FORMAT_BGR, 13, 3},
      {GST_VIDEO_FORMAT_RGBA, 50, 20},
      {GST_VIDEO_FORMAT_BGRx, 5, 3},
      {GST_VIDEO_FORMAT_GRAY8, 13, 7},
      {GST_VIDEO_FORMAT_NV12, 4095, 2},
      // Deep sources (16-bit words, or NV12_10LE40's 10 bits packed): odd
      // sizes, 1-pixel sides; padded by 3 bytes their words lie on odd
      // addresses.
      {GST_VIDEO_FORMAT_P010_10LE, 33, 17},
      {GST_VIDEO_FORMAT_P010_10LE, 1, 1},
      {GST_VIDEO_FORMAT_P010_10LE, 4095, 2},
      {GST_VIDEO_FORMAT_I420_10LE, 7, 5},
      {GST_VIDEO_FORMAT_I420_10LE, 1, 4095},
      {GST_VIDEO_FORMAT_NV12_10LE40, 33, 17},
      {GST_VIDEO_FORMAT_NV12_10LE40, 1, 1},
      {GST_VIDEO_FORMAT_NV12_10LE40, 4095, 2},
      {GST_VIDEO_FORMAT_I422_10LE, 5, 3},
      {GST_VIDEO_FORMAT_Y444_12LE, 13, 7},
      {GST_VIDEO_FORMAT_P016_LE, 3, 3},
  };
  return sizes;
}

// A system-memory pool downstream is the control (every size worked there):
// a few sizes of each kind, no input variants.
bool in_control_subset(const Size &s) {
  return (s.width == 300 && s.height == 300) || (s.width == 7 && s.height == 7) ||
         (s.width == 1 && s.height == 4095) || (s.width == 4095 && s.height == 1) ||
         s.format != GST_VIDEO_FORMAT_RGB;
}

// Outputs from a deep camera (P010, as NVDEC and VA decode 10-bit video):
// the sweep's hard sizes of each kind.
bool in_deep_subset(const Size &s) {
  return in_control_subset(s) && !(s.width == 24 || s.width == 10);
}

void add_convert_cases(const std::string &group, const std::string &element_text,
                       bool system_pool) {
  const GstVideoInfo camera = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  const GstVideoInfo deep_camera = video_info(GST_VIDEO_FORMAT_P010_10LE, 320, 240);
  for (const Size &out : output_sizes()) {
    if (!system_pool || in_control_subset(out))
      add(group + "/out_" + name_of(out.format, out.width, out.height),
          [=] { convert_case(element_text, camera, Memory::Memfd, out, system_pool); });
    if (!system_pool && in_deep_subset(out))
      add(group + "/out_p010_" + name_of(out.format, out.width, out.height),
          [=] { convert_case(element_text, deep_camera, Memory::Memfd, out, system_pool); });
  }
  for (const Size &in : input_sizes()) {
    if (system_pool)
      break;
    const GstVideoInfo tight = video_info(in.format, in.width, in.height);
    // 3 bytes of padding: an odd stride, rows of no multiple of 4 or 16.
    const GstVideoInfo padded = ef::test::padded_info(in.format, in.width, in.height, 3, 1);
    const Size out{GST_VIDEO_FORMAT_RGB, in.width, in.height};
    const std::string name = name_of(in.format, in.width, in.height);
    // One child for the three layouts of an input: each child makes a GL
    // context, and contexts are what the sweep's time goes into.
    add(group + "/in_" + name, [=] {
      convert_case(element_text, tight, Memory::Memfd, out, system_pool);
      convert_case(element_text, padded, Memory::Memfd, out, system_pool);
      convert_case(element_text, tight, Memory::System, out, system_pool);
    });
  }
}

// Tensors of every element type and layout at the sweep's sizes, their
// settings chosen so that each value is its 8-bit value exactly (int8 with
// zero point -128): turned back into RGB bytes, each frame is checked
// against GstVideoConverter as the RGB outputs are.
struct TensorSize {
  const char *type;
  bool nchw, gray;
  guint width, height;
};

// The tensor of `size` (every frame of it) as the RGB or GRAY8 frame of
// its 8-bit values.
GstBuffer *tensor_to_image(GstBuffer *tensor, const TensorSize &t, const GstVideoInfo &image) {
  GstMapInfo in;
  if (!gst_buffer_map(tensor, &in, GST_MAP_READ))
    fail_case("cannot map a tensor");
  const guint channels = t.gray ? 1 : 3;
  const std::string type = t.type;
  const gsize bytes = type == "float32" ? 4 : type == "float16" ? 2 : 1;
  const gsize want = gsize(t.width) * t.height * channels * bytes;
  if (in.size != want)
    fail_case("a tensor of " + std::to_string(in.size) + " bytes, not " + std::to_string(want));
  GstBuffer *out = gst_buffer_new_allocate(nullptr, image.size, nullptr);
  GstMapInfo o;
  gst_buffer_map(out, &o, GST_MAP_WRITE);
  for (guint y = 0; y < t.height; ++y)
    for (guint x = 0; x < t.width; ++x)
      for (guint c = 0; c < channels; ++c) {
        const gsize i = t.nchw ? (gsize(c) * t.height + y) * t.width + x
                               : (gsize(y) * t.width + x) * channels + c;
        double v;
        if (type == "float32") {
          float f;
          std::memcpy(&f, in.data + 4 * i, 4);
          v = f;
        } else if (type == "float16") {
          uint16_t h;
          std::memcpy(&h, in.data + 2 * i, 2);
          const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
          v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
        } else if (type == "int8") {
          v = double(int8_t(in.data[i])) + 128;
        } else {
          v = in.data[i];
        }
        o.data[gsize(y) * GST_VIDEO_INFO_PLANE_STRIDE(&image, 0) + gsize(x) * channels + c] =
            guint8(std::clamp(v, 0.0, 255.0));
      }
  gst_buffer_unmap(out, &o);
  gst_buffer_unmap(tensor, &in);
  return out;
}

// `backend`: efconvert's (cpu, gl: the compute pass into a buffer object).
void tensor_case(const GstVideoInfo &in, const TensorSize &t, const std::string &backend) {
  const std::string ch = t.gray ? "1" : "3", w = std::to_string(t.width),
                    h = std::to_string(t.height);
  const std::string caps =
      std::string("other/tensors,format=static,num_tensors=1,types=") + t.type +
      ",dimensions=" + (t.nchw ? w + ":" + h + ":" + ch : ch + ":" + w + ":" + h) + ":1";
  Pipeline p("appsrc name=src format=time ! efconvert backend=" + backend +
             " letterbox=false quant-zero-point=" +
             std::string(std::string(t.type) == "int8" ? "-128" : "0") + " ! " + caps +
             " ! appsink name=sink sync=false");
  if (backend == "gl")
    p.share_gl_display();
  p.set_caps(ef::test::caps_for(in));
  p.set_state(GST_STATE_PLAYING);
  const std::string what = describe(in) + " -> " + caps;
  const GstVideoInfo image =
      video_info(t.gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB, t.width, t.height);
  const guint frames = 3 * guint(scale());
  for (guint n = 0; n < frames; ++n) {
    GstBuffer *frame = ramp_frame(in, Memory::Memfd, n);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    p.push(gst_buffer_ref(frame));
    GstSample *sample = p.pull(output_wait_ms(n));
    if (!sample) {
      gst_buffer_unref(frame);
      fail_case(what + ": no output for frame " + std::to_string(n) + "\n" + p.errors());
    }
    GstBuffer *got = tensor_to_image(gst_sample_get_buffer(sample), t, image);
    GstBuffer *want = reference(frame, in, image);
    const double db = psnr(got, image, want, image);
    gst_buffer_unref(want);
    gst_buffer_unref(got);
    gst_sample_unref(sample);
    gst_buffer_unref(frame);
    if (db < kMinPsnr)
      fail_case(what + ": frame " + std::to_string(n) + " is " + std::to_string(db) +
                " dB from GstVideoConverter");
  }
  p.poll_bus();
  if (p.has_error())
    fail_case(what + ": errors on the bus:\n" + p.errors());
}

// 1-pixel sides, rows of no multiple of 16 bytes, odd sizes. NCHW tensors
// 1 or 3 wide read as NHWC in NNStreamer's dimensions (tensor_caps.hpp):
// none here.
void add_tensor_cases(const std::string &group, const std::string &backend) {
  const GstVideoInfo camera = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  // From deep cameras the tensor is made from floats, not bytes
  // (cpu_deep.hpp; GL's pass samples 16-bit textures): every type and
  // layout, a few sizes.
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE})
    for (const char *type : {"float32", "float16", "uint8", "int8"})
      for (int shape = 0; shape < 3; ++shape)
        for (auto [w, h] : {std::pair{224u, 224u}, std::pair{7u, 5u}, std::pair{1u, 1u}}) {
          const TensorSize t{type, shape == 1, shape == 2, w, h};
          if (t.nchw && w == 1)
            continue;
          const GstVideoInfo deep = video_info(format, 320, 240);
          add(group + "/tensor_" + gst_video_format_to_string(format) + "_" + type +
                  (shape == 1   ? "_nchw_"
                   : shape == 2 ? "_gray_"
                                : "_nhwc_") +
                  std::to_string(w) + "x" + std::to_string(h),
              [=] { tensor_case(deep, t, backend); });
        }
  const std::pair<guint, guint> sizes[] = {{224, 224}, {7, 5},   {1, 1},  {4095, 1},
                                           {1, 4095},  {33, 17}, {17, 9}, {300, 299}};
  for (const char *type : {"float32", "float16", "uint8", "int8"})
    for (int shape = 0; shape < 3; ++shape)  // NHWC, NCHW, one channel
      for (auto [w, h] : sizes) {
        const TensorSize t{type, shape == 1, shape == 2, w, h};
        if (t.nchw && (w == 1 || w == 3))
          continue;
        add(group + "/tensor_" + type +
                (shape == 1   ? "_nchw_"
                 : shape == 2 ? "_gray_"
                              : "_nhwc_") +
                std::to_string(w) + "x" + std::to_string(h),
            [=] { tensor_case(camera, t, backend); });
      }
}

// GstGL holds YUY2 as one RG texel per pixel, so at an odd width the last
// macropixel's second Y belongs to no pixel and is not stored: its byte is
// undefined in the output and is set to the pattern before comparing. The
// last macropixel's V (a pixel's chroma) is still compared.
std::string check_exact(GstBuffer *out, const GstVideoInfo &info, uint32_t seed) {
  if (GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_YUY2 || info.width % 2 == 0)
    return ef::test::check_buffer(out, info, seed);
  GstVideoInfo src_info = info;
  GstVideoFrame src;
  if (!gst_video_frame_map(&src, &src_info, out, GST_MAP_READ))
    return "cannot map the output buffer";
  GstBuffer *own = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstMapInfo map;
  gst_buffer_map(own, &map, GST_MAP_WRITE);
  const gsize stride = gsize(GST_VIDEO_INFO_PLANE_STRIDE(&info, 0));
  const gsize pad = gsize(info.width) * 2;
  for (gint r = 0; r < info.height; ++r) {
    guint8 *row = map.data + info.offset[0] + r * stride;
    std::memcpy(row,
                static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)) +
                    gsize(r) * GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0),
                pad + 2);
    row[pad] = ef::test::pattern_byte(seed, 0, guint(r), guint(pad));
  }
  gst_buffer_unmap(own, &map);
  gst_video_frame_unmap(&src);
  std::string why = ef::test::check_buffer(own, info, seed);
  gst_buffer_unref(own);
  return why;
}

// GstGL's YUY2 texture has one texel per pixel: at an odd width the last
// pixel's V has no texel, so efupload refuses such caps rather than lose it.
bool upload_refuses(const std::string &middle, const GstVideoInfo &in) {
  return middle.rfind("efupload", 0) == 0 && GST_VIDEO_INFO_FORMAT(&in) == GST_VIDEO_FORMAT_YUY2 &&
         GST_VIDEO_INFO_WIDTH(&in) % 2 == 1;
}

// Frames through `description` (appsrc ... appsink) compared byte for byte.
void exact_case(const std::string &middle, const GstVideoInfo &in, Memory memory) {
  Pipeline p("appsrc name=src format=time ! " + middle + " ! appsink name=sink sync=false");
  p.share_gl_display();
  p.set_caps(ef::test::caps_for(in));
  p.set_state(GST_STATE_PLAYING);
  if (upload_refuses(middle, in)) {
    p.push(memory == Memory::Memfd ? ef::test::memfd_frame(in, 1) : ef::test::system_frame(in, 1));
    const BusMessage *m = p.wait_error_or_warning(output_wait_ms(0));
    if (!m || !p.has_error() || p.errors().find("odd width") == std::string::npos)
      fail_case(describe(in) + ": odd-width YUY2 was not refused with a message naming it\n" +
                p.errors());
    return;
  }
  const guint frames = 3 * guint(scale());
  for (guint n = 0; n < frames; ++n) {
    const uint32_t seed = n + 1;
    GstBuffer *frame = memory == Memory::Memfd ? ef::test::memfd_frame(in, seed)
                                               : ef::test::system_frame(in, seed);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    p.push(frame);
    GstSample *sample = p.pull(output_wait_ms(n));
    if (!sample)
      fail_case(describe(in) + ": no output for frame " + std::to_string(n) + " within " +
                std::to_string(output_wait_ms(n)) + " ms (hang or error)\n" + p.errors());
    const std::string why = check_exact(gst_sample_get_buffer(sample), out_info_of(sample), seed);
    gst_sample_unref(sample);
    if (!why.empty())
      fail_case(describe(in) + " frame " + std::to_string(n) + ": " + why);
  }
}

const std::vector<Size> &exact_sizes(bool with_packed_yuv) {
  static const std::vector<GstVideoFormat> upload_formats = {
      GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
      GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
      GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_GRAY8};
  static const std::vector<GstVideoFormat> bridge_formats = {
      GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_RGBx,
      GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12};
  static const std::vector<std::pair<guint, guint>> dims = {{1, 1},    {7, 5},    {33, 17},
                                                            {4095, 1}, {1, 4095}, {50, 20}};
  static std::vector<Size> with, without;
  std::vector<Size> &sizes = with_packed_yuv ? with : without;
  if (sizes.empty())
    for (GstVideoFormat f : with_packed_yuv ? upload_formats : bridge_formats)
      for (auto [w, h] : dims)
        sizes.push_back({f, w, h});
  return sizes;
}

void vk_round_trip_case(const GstVideoInfo &in, Memory memory);

// One child per format, every size and layout in it (each in a new
// pipeline): a crash names the format, the log the last size begun.
void for_each_layout(GstVideoFormat format,
                     const std::function<void(const GstVideoInfo &, Memory)> &run_one) {
  for (const Size &s : exact_sizes(true)) {
    if (s.format != format)
      continue;
    const GstVideoInfo tight = video_info(s.format, s.width, s.height);
    const GstVideoInfo padded = ef::test::padded_info(s.format, s.width, s.height, 3, 1);
    for (auto [info, memory] : {std::pair{tight, Memory::Memfd}, std::pair{padded, Memory::Memfd},
                                std::pair{tight, Memory::System}}) {
      std::printf("%s %s\n", describe(info).c_str(), memory == Memory::System ? "system" : "memfd");
      std::fflush(stdout);
      run_one(info, memory);
    }
  }
}

void add_exact_cases(const std::string &group, const std::string &middle, bool packed_yuv) {
  std::vector<GstVideoFormat> formats;
  for (const Size &s : exact_sizes(packed_yuv))
    if (formats.empty() || formats.back() != s.format)
      formats.push_back(s.format);
  for (GstVideoFormat f : formats)
    add(group + "/" + gst_video_format_to_string(f), [=] {
      for_each_layout(f, [&](const GstVideoInfo &info, Memory memory) {
        if (middle.empty())
          vk_round_trip_case(info, memory);
        else
          exact_case(middle, info, memory);
      });
    });
}

// Into Vulkan with one bridge, back out with a second on the same device,
// every frame compared byte for byte with what went in.
void vk_round_trip_case(const GstVideoInfo &in, Memory memory) {
  Pipeline into(
      "appsrc name=src format=time ! efvkbridge name=bridge release-timeout=2000 ! "
      "appsink name=sink sync=false");
  into.set_caps(ef::test::caps_for(in));
  into.set_state(GST_STATE_PLAYING);
  Pipeline out(
      "appsrc name=src format=time ! efvkbridge name=bridge ! appsink name=sink sync=false");
  out.set_caps(ef::test::caps_for(in, GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE));
  bool out_started = false;
  const guint frames = 3 * guint(scale());
  for (guint n = 0; n < frames; ++n) {
    const uint32_t seed = n + 1;
    into.push(memory == Memory::Memfd ? ef::test::memfd_frame(in, seed)
                                      : ef::test::system_frame(in, seed));
    GstSample *imported = into.pull(kOutputWaitMs);
    if (!imported)
      fail_case(describe(in) + ": no frame out of the into-Vulkan bridge for frame " +
                std::to_string(n) + "\n" + into.errors());
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(gst_sample_get_buffer(imported));
    if (!meta)
      fail_case(describe(in) + ": no GstEfVkImageMeta on frame " + std::to_string(n));
    if (!out_started) {
      GstContext *context =
          gst_element_get_context(into.element("bridge"), GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
      if (!context)
        fail_case("the into-Vulkan bridge announced no device context");
      gst_element_set_context(out.element("bridge"), context);
      gst_context_unref(context);
      out.set_state(GST_STATE_PLAYING);
      out_started = true;
    }
    GstBuffer *images = gst_buffer_new();
    for (guint p = 0; p < meta->n_planes; ++p)
      gst_buffer_append_memory(images, gst_ef_vk_image_memory_new(meta->planes[p], 4096));
    out.push(images);
    gst_sample_unref(imported);
    GstSample *sample = out.pull(kOutputWaitMs);
    if (!sample)
      fail_case(describe(in) + ": no frame out of the out-of-Vulkan bridge for frame " +
                std::to_string(n) + "\n" + out.errors());
    const std::string why =
        ef::test::check_buffer(gst_sample_get_buffer(sample), out_info_of(sample), seed);
    gst_sample_unref(sample);
    if (!why.empty())
      fail_case(describe(in) + " frame " + std::to_string(n) + ": " + why);
  }
  into.poll_bus();
  out.poll_bus();
  if (into.has_error() || out.has_error())
    fail_case(describe(in) + ": errors on the bus:\n" + into.errors() + out.errors());
  for (GstElement *e : {into.element("bridge"), out.element("bridge")})
    if (guint64 v = ef::test::stat(e, "validation-messages"))
      fail_case(describe(in) + ": " + std::to_string(v) + " validation messages");
}

void register_cases(const std::string &group) {
  auto wants = [&](const char *name) { return group.empty() || group == name; };
  const bool any_gl = wants("efconvert-gl") || wants("efconvert-gl-syspool") || wants("efupload");
  const std::string no_gl = any_gl ? gl_missing() : "";
  if (!no_gl.empty())
    skip_group("GL cases: " + no_gl);
  if (no_gl.empty() && wants("efconvert-gl")) {
    add_convert_cases("efconvert-gl", "efconvert backend=gl letterbox=false", false);
    add_tensor_cases("efconvert-gl", "gl");
  }
  if (no_gl.empty() && wants("efconvert-gl-syspool"))
    add_convert_cases("efconvert-gl-syspool", "efconvert backend=gl letterbox=false", true);
  if (wants("efconvert-cpu")) {
    add_convert_cases("efconvert-cpu", "efconvert backend=cpu letterbox=false", false);
    add_tensor_cases("efconvert-cpu", "cpu");
  }
  if (no_gl.empty() && wants("efupload"))
    add_exact_cases("efupload",
                    "efupload ! video/x-raw(memory:GLMemory) ! gldownload ! video/x-raw", true);
  if (wants("efvkbridge")) {
    const std::string no_vk = vulkan_missing();
    if (!no_vk.empty()) {
      skip_group("efvkbridge cases: " + no_vk);
    } else {
      // Validation makes each of the sweep's devices cost seconds; the
      // element tests run with it.
      g_setenv("EF_VK_VALIDATION", "0", TRUE);
      add_exact_cases("efvkbridge", "", false);
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  return run(argc, argv, "stress-sizes", register_cases);
}
