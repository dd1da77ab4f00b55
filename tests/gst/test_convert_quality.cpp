// SPDX-License-Identifier: LGPL-2.1-or-later
// The picture efconvert makes, both backends, against `videoconvert !
// videoscale` (GStreamer's own, whose linear filter widens with the
// reduction) and against each other: real decoder output (VP8, planes
// padded as the decoder allocates them) at 1080p to 640x640 and at 2x, 3x,
// 5x and 8x reductions, odd sizes, and chroma that must have the output's
// full resolution at colour edges; both against the exact box reference
// (box_reference.hpp) at every reduction, down to a whole frame in one
// pixel; the same frame in the deep formats of 10-bit decoders, within the
// same bounds; and a 10-bit ramp into float tensors, which keep what lies
// between the 8-bit levels. A 10-bit decode from a real encoder is
// test_deep_decode.cpp's.
// <memory> before gstcheck.h: it brings the C++ streams, which declare a
// fail() of their own.
#include <memory>

#include <gst/app/app.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "box_reference.hpp"
#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

constexpr double kMinPsnr = 35.0;

struct Frame {
  GstBuffer *buffer = nullptr;
  GstVideoInfo info{};
  ~Frame() {
    if (buffer)
      gst_buffer_unref(buffer);
  }
};

// The frame `launch` (appsrc name=src ! ... ! appsink name=sink) makes of
// `input`.
void pull_frame(const std::string &launch, Frame &frame, GstBuffer *input) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(launch.c_str(), &error);
  fail_unless(pipeline != nullptr, "%s: %s", launch.c_str(), error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  gst_app_src_push_buffer(GST_APP_SRC(src), input);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  gst_object_unref(src);
  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 60 * GST_SECOND);
  if (!sample) {
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    GError *err = nullptr;
    if (msg)
      gst_message_parse_error(msg, &err, nullptr);
    fail("%s made no frame: %s", launch.c_str(), err ? err->message : "no error either");
  }
  fail_unless(gst_video_info_from_caps(&frame.info, gst_sample_get_caps(sample)));
  frame.buffer = gst_buffer_ref(gst_sample_get_buffer(sample));
  gst_sample_unref(sample);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
}

// Camera-like content: smooth shading, texture down to a 32-pixel period
// and saturated colour patches whose edges ramp over 3 pixels, as a lens
// leaves them; RGBx.
GstBuffer *scene(int w, int h) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, gsize(w) * h * 4, nullptr);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  auto ramp = [](double d) { return std::clamp(0.5 + d / 3.0, 0.0, 1.0); };
  const double patch[4][3] = {{230, 30, 40}, {30, 60, 220}, {40, 200, 60}, {240, 220, 30}};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double rgb[3];
      for (int c = 0; c < 3; ++c)
        rgb[c] = 128 + 70 * std::sin(x / (90.0 + 40 * c) + y / (130.0 - 30 * c) + c) +
                 24 * std::sin(2 * G_PI * (x / 32.0 + y / (48.0 + 16 * c)));
      for (int k = 0; k < 4; ++k) {
        // Patches of 301 x 211 pixels, edges at odd places.
        const double x0 = 101 + 437 * k, y0 = 133 + 197 * k;
        const double inside =
            std::min({ramp(x - x0), ramp(x0 + 301 - x), ramp(y - y0), ramp(y0 + 211 - y)});
        for (int c = 0; c < 3; ++c)
          rgb[c] = rgb[c] * (1 - inside) + patch[k][c] * inside;
      }
      guint8 *p = map.data + (size_t(y) * w + x) * 4;
      for (int c = 0; c < 3; ++c)
        p[c] = guint8(std::clamp(rgb[c], 0.0, 255.0));
      p[3] = 255;
    }
  gst_buffer_unmap(buf, &map);
  return buf;
}

// The scene at 1080p through VP8 and back: I420 in the decoder's own
// buffers, made once.
const Frame &decoded() {
  static Frame frame;
  if (frame.buffer)
    return frame;
  const std::string launch =
      "appsrc name=src caps=video/x-raw,format=RGBx,width=1920,height=1080,framerate=30/1"
      " ! videoconvert ! video/x-raw,format=I420"
      " ! vp8enc deadline=1 target-bitrate=20000000 ! vp8dec ! appsink name=sink sync=false";
  pull_frame(launch, frame, scene(1920, 1080));
  return frame;
}

// `chain` (a harness launch line) on one frame, into `out`; the sink offers
// system memory, as an appsink that maps every frame does.
GstBuffer *run_chain(const std::string &chain, const Frame &in, const GstVideoInfo &out_info) {
  GstHarness *h = gst_harness_new_parse(chain.c_str());
  offer_downstream_pool(h, nullptr, 2);
  GstVideoInfo out = out_info;
  out.fps_n = in.info.fps_n, out.fps_d = in.info.fps_d;
  gst_harness_set_caps(h, gst_video_info_to_caps(&in.info), gst_video_info_to_caps(&out));
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(in.buffer)), GST_FLOW_OK);
  GstBuffer *buf = gst_harness_pull(h);
  gst_harness_teardown(h);
  return buf;
}

// Calls f(pixel of a, pixel of b) for every pixel of rows [y0, y1) of two
// packed RGB frames.
template <typename F>
void each_pixel(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info, int y0, int y1, F f) {
  GstVideoFrame fa, fb;
  GstVideoInfo ia = info, ib = info;
  fail_unless(gst_video_frame_map(&fa, &ia, a, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&fb, &ib, b, GST_MAP_READ));
  for (int y = y0; y < y1; ++y) {
    const auto *ra = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fa, 0)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&fa, 0);
    const auto *rb = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&fb, 0)) +
                     y * GST_VIDEO_FRAME_PLANE_STRIDE(&fb, 0);
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH(&info); ++x)
      f(ra + 3 * x, rb + 3 * x);
  }
  gst_video_frame_unmap(&fa);
  gst_video_frame_unmap(&fb);
}

double db(double se, int64_t n) {
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * double(n) / se);
}

// PSNR over the R, G, B bytes of rows [y0, y1) of two packed RGB frames.
double psnr(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info, int y0, int y1) {
  double se = 0;
  int64_t n = 0;
  each_pixel(a, b, info, y0, y1, [&](const guint8 *pa, const guint8 *pb) {
    for (int c = 0; c < 3; ++c, ++n) {
      const double d = double(pa[c]) - pb[c];
      se += d * d;
    }
  });
  return db(se, n);
}

// The luma and chroma parts of that difference as PSNRs: which of them a
// backend's filter misses.
void yuv_psnr(GstBuffer *a, GstBuffer *b, const GstVideoInfo &info, int y0, int y1, double &luma,
              double &chroma) {
  double se[2] = {0, 0};
  int64_t n = 0;
  each_pixel(a, b, info, y0, y1, [&](const guint8 *pa, const guint8 *pb) {
    double d[3];
    for (int c = 0; c < 3; ++c)
      d[c] = double(pa[c]) - pb[c];
    const double dy = 0.299 * d[0] + 0.587 * d[1] + 0.114 * d[2];
    const double du = -0.168736 * d[0] - 0.331264 * d[1] + 0.5 * d[2];
    const double dv = 0.5 * d[0] - 0.418688 * d[1] - 0.081312 * d[2];
    se[0] += dy * dy;
    se[1] += (du * du + dv * dv) / 2;
    ++n;
  });
  luma = db(se[0], n);
  chroma = db(se[1], n);
}

struct Geometry {
  int w, h;
  int y0, y1;  // the content rows (the rest is border)
  const char *what;
  // The reference's linear filter takes two taps whatever the reduction
  // (it aliases), efconvert's a box over the pixels each output covers;
  // at a factor that is not whole libyuv's box alternates box widths, so
  // the two meet less closely there.
  double min_psnr = kMinPsnr;
};

// 1080p to a model input (letterboxed, 3x), and whole reductions.
constexpr Geometry kGeometries[] = {
    {640, 640, 140, 500, "640x640 letterbox"},
    {960, 540, 0, 540, "2x"},
    {640, 360, 0, 360, "3x"},
    {384, 216, 0, 216, "5x"},
    {240, 135, 0, 135, "8x"},
    {400, 225, 0, 225, "4.8x, odd height", 30.0},
};

GstVideoInfo rgb_info(int w, int h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGB, w, h);
  return info;
}

const char *const kReference = "videoconvert ! videoscale";

// The decoded frame in `format` (GstVideoConverter: each 8-bit sample
// widened), made once per format.
const Frame &decoded_as(GstVideoFormat format) {
  static std::vector<std::unique_ptr<Frame>> frames;
  for (const auto &f : frames)
    if (GST_VIDEO_INFO_FORMAT(&f->info) == format)
      return *f;
  const Frame &in = decoded();
  auto frame = std::make_unique<Frame>();
  gst_video_info_set_format(&frame->info, format, GST_VIDEO_INFO_WIDTH(&in.info),
                            GST_VIDEO_INFO_HEIGHT(&in.info));
  frame->info.colorimetry = in.info.colorimetry;
  frame->info.chroma_site = in.info.chroma_site;
  frame->info.fps_n = in.info.fps_n, frame->info.fps_d = in.info.fps_d;
  frame->buffer = gst_buffer_new_allocate(nullptr, frame->info.size, nullptr);
  GstVideoFrame src, dst;
  GstVideoInfo src_info = in.info;
  fail_unless(gst_video_frame_map(&src, &src_info, in.buffer, GST_MAP_READ));
  fail_unless(gst_video_frame_map(&dst, &frame->info, frame->buffer, GST_MAP_WRITE));
  GstVideoConverter *c = gst_video_converter_new(&src_info, &frame->info, nullptr);
  gst_video_converter_frame(c, &src, &dst);
  gst_video_converter_free(c);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  frames.push_back(std::move(frame));
  return *frames.back();
}

// Each backend against the reference (and the two against each other when
// both run), on the frame `in` (`pattern` names it).
void compare(bool gl, const Frame &in, const char *pattern) {
  {
    for (const Geometry &g : kGeometries) {
      const GstVideoInfo out = rgb_info(g.w, g.h);
      GstBuffer *ref = run_chain(kReference, in, out);
      GstBuffer *cpu = run_chain("efconvert backend=cpu", in, out);
      const double cpu_db = psnr(cpu, ref, out, g.y0, g.y1);
      std::printf("%s %s: cpu %.1f dB from %s", pattern, g.what, cpu_db, kReference);
      if (!gl) {
        std::printf("\n");
        fail_unless(cpu_db >= g.min_psnr, "%s %s: cpu %.1f dB from %s", pattern, g.what, cpu_db,
                    kReference);
      } else {
        GstBuffer *glb = run_chain("efconvert backend=gl", in, out);
        const double gl_db = psnr(glb, ref, out, g.y0, g.y1);
        const double between = psnr(glb, cpu, out, g.y0, g.y1);
        double luma = 0, chroma = 0, cpu_luma = 0, cpu_chroma = 0;
        yuv_psnr(glb, ref, out, g.y0, g.y1, luma, chroma);
        yuv_psnr(glb, cpu, out, g.y0, g.y1, cpu_luma, cpu_chroma);
        std::printf(
            ", gl %.1f dB (Y %.1f, chroma %.1f), gl from cpu %.1f dB (Y %.1f, chroma %.1f)\n",
            gl_db, luma, chroma, between, cpu_luma, cpu_chroma);
        std::fflush(stdout);
        gst_buffer_unref(glb);
        fail_unless(gl_db >= g.min_psnr && between >= g.min_psnr,
                    "%s %s: gl %.1f dB from %s, %.1f dB from cpu", pattern, g.what, gl_db,
                    kReference, between);
      }
      gst_buffer_unref(cpu);
      gst_buffer_unref(ref);
    }
  }
}

// NV12 of one luma level whose chroma changes at every chroma sample (a
// colour zone plate): every change in the output is a change of chroma.
GstBuffer *colour_plate(const GstVideoInfo &info) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_WRITE));
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT(&info); ++y)
    memset(static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
               y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0),
           110, GST_VIDEO_INFO_WIDTH(&info));
  for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, 1); ++y) {
    auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);
    for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, 1); ++x) {
      const double r2 = (x * x + y * y) / 900.0;
      row[2 * x] = guint8(128 + 60 * std::cos(r2));
      row[2 * x + 1] = guint8(128 + 60 * std::sin(1.3 * r2));
    }
  }
  gst_video_frame_unmap(&f);
  return buf;
}

// Mean absolute change of R - G and B - G between neighbours inside
// aligned 2x2 blocks and across them, horizontally and vertically.
void chroma_changes(GstBuffer *buf, const GstVideoInfo &info, double &inside, double &across) {
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_READ));
  auto at = [&](int x, int y, int c) {
    return int(static_cast<const guint8 *>(
        GST_VIDEO_FRAME_PLANE_DATA(&f, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + 3 * x + c]);
  };
  auto change = [&](int x0, int y0, int x1, int y1) {
    return std::abs((at(x0, y0, 0) - at(x0, y0, 1)) - (at(x1, y1, 0) - at(x1, y1, 1))) +
           std::abs((at(x0, y0, 2) - at(x0, y0, 1)) - (at(x1, y1, 2) - at(x1, y1, 1)));
  };
  double sums[2] = {0, 0};
  int counts[2] = {0, 0};
  const int w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  for (int y = 0; y + 1 < h; ++y)
    for (int x = 0; x + 1 < w; ++x) {
      sums[x % 2] += change(x, y, x + 1, y);
      ++counts[x % 2];
      sums[y % 2] += change(x, y, x, y + 1);
      ++counts[y % 2];
    }
  gst_video_frame_unmap(&f);
  inside = sums[0] / counts[0];
  across = sums[1] / counts[1];
}

void check_chroma_resolution(const char *backend) {
  GstVideoInfo in, out;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_NV12, 320, 240);
  const int sizes[][2] = {{64, 48}, {160, 120}, {214, 160}, {320, 240}};
  for (const auto &size : sizes) {
    out = rgb_info(size[0], size[1]);
    GstHarness *h = gst_harness_new_parse((std::string("efconvert backend=") + backend).c_str());
    offer_downstream_pool(h, nullptr, 2);
    gst_harness_set_caps(h, gst_video_info_to_caps(&in), gst_video_info_to_caps(&out));
    fail_unless_equals_int(gst_harness_push(h, colour_plate(in)), GST_FLOW_OK);
    GstBuffer *buf = gst_harness_pull(h);
    double inside, across;
    chroma_changes(buf, out, inside, across);
    std::printf("%s 320x240 -> %dx%d: chroma change %.2f inside 2x2 blocks, %.2f across\n", backend,
                size[0], size[1], inside, across);
    fail_unless(inside >= 0.5 * across,
                "%s %dx%d: chroma change %.2f inside 2x2 blocks, %.2f across", backend, size[0],
                size[1], inside, across);
    gst_buffer_unref(buf);
    gst_harness_teardown(h);
  }
}

// ---------------------------------------------------------------------------
// Against the exact box reference

// One frame of videotestsrc `pattern` (with its properties) as NV12.
GstBuffer *test_pattern(const std::string &pattern, int w, int h) {
  const std::string launch = "videotestsrc num-buffers=1 pattern=" + pattern +
                             " ! video/x-raw,format=NV12,width=" + std::to_string(w) +
                             ",height=" + std::to_string(h) + " ! appsink name=sink sync=false";
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(launch.c_str(), &error);
  fail_unless(pipeline != nullptr, "%s: %s", launch.c_str(), error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND);
  fail_unless(sample != nullptr, "%s made no frame", launch.c_str());
  GstBuffer *buffer = gst_buffer_ref(gst_sample_get_buffer(sample));
  gst_sample_unref(sample);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return buffer;
}

// NV12 colour steps: blocks of 13 x 11 pixels, each a colour of its own
// (saturated ones included), so that every footprint cuts edges in luma
// and in chroma at odd places.
GstBuffer *colour_steps(const GstVideoInfo &info) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame f;
  GstVideoInfo copy = info;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_WRITE));
  auto block = [](int bx, int by, int salt) {
    return guint8((bx * 97 + by * 61 + salt * 151 + (bx * by) % 29 * 37) % 256);
  };
  for (int y = 0; y < GST_VIDEO_INFO_HEIGHT(&info); ++y) {
    auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (int x = 0; x < GST_VIDEO_INFO_WIDTH(&info); ++x)
      row[x] = guint8(16 + block(x / 13, y / 11, 0) * 219 / 255);
  }
  for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, 1); ++y) {
    auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);
    for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, 1); ++x) {
      row[2 * x] = guint8(16 + block(2 * x / 13, 2 * y / 11, 1) * 224 / 255);
      row[2 * x + 1] = guint8(16 + block(2 * x / 13, 2 * y / 11, 2) * 224 / 255);
    }
  }
  gst_video_frame_unmap(&f);
  return buf;
}

struct BoxSize {
  int in_w, in_h, out_w, out_h;
  bool letterbox;
  GstVideoRectangle content;  // where the picture lies in the output
  GstVideoRectangle crop{};   // of the source; none: the whole frame
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
};

// Stretched, and the model input: 1080p letterboxed into 640x640, its
// content 640x360 from row 140. 1080p's chroma is cosited across (mpeg2,
// its default), 320x240's centred.
constexpr BoxSize kBoxSizes[] = {
    {320, 240, 1, 1, false, {0, 0, 1, 1}},
    {320, 240, 4, 3, false, {0, 0, 4, 3}},
    {320, 240, 16, 12, false, {0, 0, 16, 12}},
    {320, 240, 33, 17, false, {0, 0, 33, 17}},
    {320, 240, 1, 240, false, {0, 0, 1, 240}},
    {320, 240, 320, 1, false, {0, 0, 320, 1}},
    {1920, 1080, 1, 1, false, {0, 0, 1, 1}},
    {1920, 1080, 7, 5, false, {0, 0, 7, 5}},
    {1920, 1080, 640, 640, true, {0, 140, 640, 360}},
    // Reductions whose chroma (subsampled) reduces by less than 2 or
    // enlarges along an axis where luma reduces by more than 1.5: chroma
    // over the same footprint as luma (the CPU's took two rows: colour
    // steps 5 and 21 levels off at 97x61 -> 31x17, 27 at 1080p -> 640x640).
    {97, 61, 31, 17, false, {0, 0, 31, 17}},
    {1920, 1080, 640, 640, false, {0, 0, 640, 640}},
    // Crops that start between two chroma samples (odd x, odd y) and
    // flips and turns of a frame of odd sides, whose first chroma sample
    // then covers one pixel of the picture and one outside it: chroma one
    // pixel off where they are taken as aligned (the CPU's were: 26 levels
    // on a zone plate cropped at x = 5).
    {97, 61, 31, 21, false, {0, 0, 31, 21}, {5, 3, 61, 41}},
    {97, 61, 20, 13, false, {0, 0, 20, 13}, {7, 1, 61, 41}},
    {97, 61, 31, 17, false, {0, 0, 31, 17}, {}, GST_VIDEO_ORIENTATION_VERT},
    {97, 61, 31, 17, false, {0, 0, 31, 17}, {}, GST_VIDEO_ORIENTATION_HORIZ},
    {97, 61, 31, 17, false, {0, 0, 31, 17}, {}, GST_VIDEO_ORIENTATION_180},
    {97, 61, 17, 31, false, {0, 0, 17, 31}, {}, GST_VIDEO_ORIENTATION_90R},
    {97, 61, 17, 31, false, {0, 0, 17, 31}, {}, GST_VIDEO_ORIENTATION_UL_LR},
    {97, 61, 17, 31, false, {0, 0, 17, 31}, {3, 5, 61, 41}, GST_VIDEO_ORIENTATION_UR_LL},
};

// The chain's properties for `s`'s crop and direction.
std::string geometry_properties(const BoxSize &s) {
  std::string props = s.letterbox ? "" : " letterbox=false";
  if (s.crop.w)
    props += " crop=\"<" + std::to_string(s.crop.x) + ", " + std::to_string(s.crop.y) + ", " +
             std::to_string(s.crop.w) + ", " + std::to_string(s.crop.h) + ">\"";
  if (s.direction != GST_VIDEO_ORIENTATION_IDENTITY) {
    GEnumClass *directions = G_ENUM_CLASS(g_type_class_ref(GST_TYPE_VIDEO_ORIENTATION_METHOD));
    props +=
        std::string(" video-direction=") + g_enum_get_value(directions, s.direction)->value_nick;
    g_type_class_unref(directions);
  }
  return props;
}

// What each backend may miss the reference by, as a mean absolute error
// over the content's R, G and B bytes. Both average the exact footprint;
// the residue is bytes rounded (the CPU's twice: its 8-bit averages go
// through libyuv's tables) and, on GL, chroma interpolated between samples
// along an axis that is not reduced, where the reference holds each sample
// over its area. Neither may be further from the reference than the
// other by more than kMargin anywhere: a model's input must not depend on
// the backend that ran.
constexpr double kCpuMaxMae = 1.5, kGlMaxMae = 1.5, kMargin = 1.0;

// Mean absolute error of the content of packed RGB `buf` (turned by
// `direction`) against the box reference of the content's unturned size.
double box_mae(GstBuffer *buf, const GstVideoInfo &out, const GstVideoRectangle &content,
               GstVideoOrientationMethod direction, const ef::test::BoxImage &ref) {
  GstVideoFrame f;
  GstVideoInfo copy = out;
  fail_unless(gst_video_frame_map(&f, &copy, buf, GST_MAP_READ));
  double sum = 0;
  for (int y = 0; y < content.h; ++y) {
    const auto *row = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                      (content.y + y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    for (int x = 0; x < content.w; ++x) {
      int ux, uy;
      ef::test::unturn(direction, x, y, content.w, content.h, ux, uy);
      for (int c = 0; c < 3; ++c)
        sum += std::fabs(row[3 * (content.x + x) + c] - std::clamp(ref.at(ux, uy)[c], 0.0, 255.0));
    }
  }
  gst_video_frame_unmap(&f);
  return sum / (3.0 * content.w * content.h);
}

struct Content {
  const char *name;
  std::function<GstBuffer *(const GstVideoInfo &)> make;  // a new frame
};

// The backends the element runs: the CPU, and GL with each shader stage.
constexpr const char *kBackends[] = {"backend=cpu", "backend=gl gl-shader=fragment",
                                     "backend=gl gl-shader=compute"};
constexpr const char *kBackendNames[] = {"cpu", "gl fragment", "gl compute"};

void check_against_box(bool gl) {
  const Content contents[] = {
      {"smpte", [](const GstVideoInfo &i) { return test_pattern("smpte", i.width, i.height); }},
      {"zone plate",
       [](const GstVideoInfo &i) {
         return test_pattern("zone-plate kx2=20 ky2=20 kt2=0", i.width, i.height);
       }},
      {"colour steps", colour_steps},
  };
  const int n_backends = gl ? 3 : 1;
  std::string failures;  // the first
  std::printf("MAE against the box reference (0-255, mean over R, G, B):\n");
  std::printf("%-13s %-34s", "content", "size");
  for (int b = 0; b < n_backends; ++b)
    std::printf(" %13s", kBackendNames[b]);
  std::printf("\n");
  for (const Content &content : contents)
    for (const BoxSize &s : kBoxSizes) {
      GstVideoInfo in_info;
      gst_video_info_set_format(&in_info, GST_VIDEO_FORMAT_NV12, s.in_w, s.in_h);
      in_info.fps_n = 30, in_info.fps_d = 1;
      // The info as the element reads it from the caps: where the caps say
      // no chroma-site (GStreamer 1.26 leaves it out of 1080p caps), the
      // element takes the format's default, which the reference must site
      // its chroma by too.
      GstCaps *caps = gst_video_info_to_caps(&in_info);
      fail_unless(gst_video_info_from_caps(&in_info, caps));
      gst_caps_unref(caps);
      Frame in;
      in.info = in_info;
      in.buffer = content.make(in_info);
      GstVideoFrame src;
      fail_unless(gst_video_frame_map(&src, &in.info, in.buffer, GST_MAP_READ));
      const bool swap =
          s.direction == GST_VIDEO_ORIENTATION_90R || s.direction == GST_VIDEO_ORIENTATION_90L ||
          s.direction == GST_VIDEO_ORIENTATION_UL_LR || s.direction == GST_VIDEO_ORIENTATION_UR_LL;
      const GstVideoRectangle crop = s.crop.w ? s.crop : GstVideoRectangle{0, 0, s.in_w, s.in_h};
      const ef::test::BoxImage ref = ef::test::box_reference(
          src, crop, swap ? s.content.h : s.content.w, swap ? s.content.w : s.content.h);
      gst_video_frame_unmap(&src);
      const GstVideoInfo out = rgb_info(s.out_w, s.out_h);
      const std::string size =
          std::to_string(s.in_w) + "x" + std::to_string(s.in_h) +
          (s.crop.w ? " crop+" + std::to_string(s.crop.x) + "+" + std::to_string(s.crop.y) : "") +
          " -> " + std::to_string(s.out_w) + "x" + std::to_string(s.out_h) +
          (s.letterbox ? " lb" : "") + (s.direction ? " d" + std::to_string(int(s.direction)) : "");
      double mae[3] = {};
      for (int b = 0; b < n_backends; ++b) {
        const std::string chain = std::string("efconvert ") + kBackends[b] + geometry_properties(s);
        GstBuffer *buf = run_chain(chain, in, out);
        mae[b] = box_mae(buf, out, s.content, s.direction, ref);
        gst_buffer_unref(buf);
      }
      std::printf("%-13s %-34s", content.name, size.c_str());
      for (int b = 0; b < n_backends; ++b)
        std::printf(" %13.2f", mae[b]);
      std::printf("\n");
      std::fflush(stdout);
      // The whole table first, then what failed.
      auto fail_once = [&](const char *backend, double value, const std::string &bound) {
        if (failures.empty())
          failures = std::string(content.name) + " " + size + ": " + backend + " " +
                     std::to_string(value) + " from the box reference, bound " + bound;
      };
      if (!(mae[0] <= kCpuMaxMae))
        fail_once("cpu", mae[0], std::to_string(kCpuMaxMae));
      for (int b = 1; b < n_backends; ++b) {
        if (!(mae[b] <= kGlMaxMae))
          fail_once(kBackendNames[b], mae[b], std::to_string(kGlMaxMae));
        if (!(mae[b] <= mae[0] + kMargin))
          fail_once(kBackendNames[b], mae[b], "the cpu's + " + std::to_string(kMargin));
        if (!(mae[0] <= mae[b] + kMargin))
          fail_once("cpu", mae[0],
                    std::string("the ") + kBackendNames[b] + "'s + " + std::to_string(kMargin));
      }
    }
  fail_unless(failures.empty(), "%s", failures.c_str());
}

}  // namespace

// Both backends against the exact box reference at every reduction, down
// to a whole frame in one pixel, each axis alone, chroma centred and
// cosited: each within 1.5 levels, and the two within a level of each other
// (a model's input must not depend on which ran).
GST_START_TEST(test_box_reference_cpu) {
  check_against_box(false);
}
GST_END_TEST;

GST_START_TEST(test_box_reference_gl) {
  check_against_box(true);
}
GST_END_TEST;

// Chroma has the output's resolution: inside aligned 2x2 output blocks it
// changes about as much as across them (half-resolution chroma is constant
// there).
GST_START_TEST(test_chroma_resolution_cpu) {
  check_chroma_resolution("cpu");
}
GST_END_TEST;

GST_START_TEST(test_chroma_resolution_gl) {
  check_chroma_resolution("gl");
}
GST_END_TEST;

GST_START_TEST(test_decoder_output_cpu) {
  compare(false, decoded(), "decoded");
}
GST_END_TEST;

GST_START_TEST(test_decoder_output_gl) {
  compare(true, decoded(), "decoded");
}
GST_END_TEST;

// The decoder's frame in the formats 10-bit decoders give: within the
// bounds the 8-bit frame meets.
constexpr GstVideoFormat kDeepFormats[] = {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE,
                                           GST_VIDEO_FORMAT_NV12_10LE40};

GST_START_TEST(test_deep_decoder_output_cpu) {
  for (GstVideoFormat format : kDeepFormats)
    compare(false, decoded_as(format), gst_video_format_to_string(format));
}
GST_END_TEST;

GST_START_TEST(test_deep_decoder_output_gl) {
  for (GstVideoFormat format : kDeepFormats)
    compare(true, decoded_as(format), gst_video_format_to_string(format));
}
GST_END_TEST;

namespace {

// A horizontal ramp of `codes` luma codes from 64 on (limited-range BT.709,
// neutral chroma) `rows` high, in `format`: 10 bits (P010) or 8 (NV12, the
// same ramp rounded to bytes).
GstBuffer *luma_ramp(GstVideoFormat format, int codes, int rows, GstVideoInfo &info) {
  gst_video_info_set_format(&info, format, guint(codes), guint(rows));
  gst_video_colorimetry_from_string(&info.colorimetry, "bt709");
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &info, buf, GST_MAP_WRITE));
  const bool deep = format != GST_VIDEO_FORMAT_NV12;
  for (guint p = 0; p < 2; ++p)
    for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, p); ++y) {
      auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, p)) +
                  y * GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
      for (int x = 0; x < codes; ++x) {  // plane 1: U, V alternating, neutral
        const double code = p == 0 ? 64 + x : 512;
        if (deep)
          reinterpret_cast<guint16 *>(row)[x] = guint16(int(code) << 6);
        else
          row[x] = guint8(std::lround(code / 4));
      }
    }
  gst_video_frame_unmap(&f);
  return buf;
}

}  // namespace

// A 10-bit ramp (876 luma codes, a quarter of an 8-bit level apart) into a
// float32 tensor through the element: the values lie between the 8-bit
// levels, within 0.01 of the exact value of each code, where the same ramp
// rounded to 8-bit codes (NV12) is up to half a code off (0.58 levels: its
// values are those of its own codes, exact too, so between levels also).
GST_START_TEST(test_deep_ramp_tensor) {
  constexpr int kCodes = 876, kRows = 4;
  double worst[2] = {0, 0};
  size_t between[2] = {0, 0};
  const GstVideoFormat formats[2] = {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_NV12};
  for (int k = 0; k < 2; ++k) {
    GstVideoInfo info;
    GstBuffer *ramp = luma_ramp(formats[k], kCodes, kRows, info);
    GstHarness *h = gst_harness_new_parse("efconvert backend=cpu letterbox=false");
    gst_harness_set_caps(h, gst_video_info_to_caps(&info),
                         gst_caps_from_string("other/tensors,format=static,num_tensors=1,"
                                              "types=float32,dimensions=3:876:4:1,framerate=0/1"));
    fail_unless_equals_int(gst_harness_push(h, ramp), GST_FLOW_OK);
    GstBuffer *tensor = gst_harness_pull(h);
    GstMapInfo map;
    fail_unless(gst_buffer_map(tensor, &map, GST_MAP_READ));
    fail_unless_equals_uint64(map.size, guint64(kCodes) * kRows * 3 * sizeof(float));
    const auto *v = reinterpret_cast<const float *>(map.data);
    for (gsize i = 0; i < map.size / sizeof(float); ++i) {
      const double exact = int(i / 3 % kCodes) * 255.0 / 876;
      worst[k] = std::max(worst[k], std::abs(v[i] - exact));
      between[k] += std::abs(v[i] - std::round(v[i])) > 0.1;
    }
    gst_buffer_unmap(tensor, &map);
    gst_buffer_unref(tensor);
    gst_harness_teardown(h);
  }
  std::printf(
      "10-bit ramp to float32: within %.4f of the exact values, %zu of %d between 8-bit "
      "levels; the ramp in 8 bits: within %.3f, %zu between\n",
      worst[0], between[0], kCodes * kRows * 3, worst[1], between[1]);
  fail_unless(worst[0] < 0.01, "P010: %.4f from the exact values", worst[0]);
  fail_unless(between[0] > size_t(kCodes * kRows * 3) / 2, "P010: %zu between levels", between[0]);
  // The control: the test can tell 8 bits from 10.
  fail_unless(worst[1] > 0.3, "NV12: %.3f from the 10-bit ramp's values", worst[1]);
}
GST_END_TEST;

static Suite *quality_suite() {
  Suite *s = suite_create("convert_quality");
  TCase *tc = tcase_create("quality");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_chroma_resolution_cpu);
  tcase_add_test(tc, test_chroma_resolution_gl);
  tcase_add_test(tc, test_decoder_output_cpu);
  tcase_add_test(tc, test_decoder_output_gl);
  tcase_add_test(tc, test_box_reference_cpu);
  tcase_add_test(tc, test_box_reference_gl);
  tcase_add_test(tc, test_deep_decoder_output_cpu);
  tcase_add_test(tc, test_deep_decoder_output_gl);
  tcase_add_test(tc, test_deep_ramp_tensor);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, quality_suite, Needs::Gl);
}
