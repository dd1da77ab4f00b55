// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's tensors (other/tensors caps) on the CPU backend, against a
// reference computed here as numpy would from the same backend's 8-bit
// output of the same frame (RGB, or GRAY8 for one channel): every element
// type x layout x channel order, with and without letterbox, on a zone
// plate with colour steps at odd sizes whose rows are no multiple of 16
// bytes. int8 and uint8 follow the quantisation formula exactly; a float
// tensor, which is not rounded to 8 bits, is within the 8-bit frame's own
// error of it (2.5 levels, 0-255 units, before normalisation), and within
// hundredths of a level of the exact values (test_float_precision,
// tensor_precision.hpp). Bad properties and caps are errors on the bus.
#include <gst/ef/gstef.h>
#include <gst/allocators/allocators.h>
#include <gst/video/video.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "frames.hpp"
#include "harness.hpp"
#include "tensor_precision.hpp"
#include "tensors.hpp"

#if GST_CHECK_VERSION(1, 26, 0) && __has_include(<gst/analytics/gsttensormeta.h>)
#include <gst/analytics/gsttensormeta.h>
#endif

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

using namespace ef::test;

namespace {

struct Run {
  std::string in_caps, out_caps, props;
};

// One frame through efconvert backend=cpu; the output buffer.
GstBuffer *run_one(const Run &r, GstBuffer *frame) {
  return convert_one("efconvert backend=cpu " + r.props, r.in_caps, r.out_caps, frame);
}

void check_case(const TensorCase &c, GstBuffer *frame) {
  const std::string in_caps = caps_text(c.in);
  // The same backend's 8-bit output of the frame.
  const GstVideoInfo image =
      video_info(c.gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB, c.w, c.h);
  GstBuffer *bytes = run_one({in_caps, caps_text(image), letterbox_props(c)}, frame);
  GstVideoFrame f;
  GstVideoInfo image_info = image;
  fail_unless(gst_video_frame_map(&f, &image_info, bytes, GST_MAP_READ));
  for (const TensorNormCase &n : norms_for(c.type, c.gray)) {
    const std::string props = tensor_props(c, n);
    const std::string out_caps = tensor_caps(c);
    GstBuffer *tensor = run_one({in_caps, out_caps, props}, frame);
    const std::string what = in_caps + " -> " + out_caps + " (" + props + ")";
    fail_unless_equals_int(gst_buffer_n_memory(tensor), 1);
    fail_unless(gst_buffer_get_ef_transform_meta(tensor), "%s: no transform meta", what.c_str());
    GstMapInfo map;
    fail_unless(gst_buffer_map(tensor, &map, GST_MAP_READ));
    const guint channels = c.gray ? 1 : 3;
    fail_unless_equals_uint64(map.size, gsize(c.w) * c.h * channels * element_bytes(c.type));
    double worst = 0;
    for (guint y = 0; y < c.h; ++y)
      for (guint x = 0; x < c.w; ++x)
        for (guint k = 0; k < channels; ++k) {
          const guint colour = c.gray ? 0 : c.bgr ? 2 - k : k;  // R, G, B in the RGB frame
          const guint8 *px = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                             gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) +
                             gsize(x) * (c.gray ? 1 : 3);
          const double v8 = px[colour];
          const double got = tensor_element(map.data, c.type, tensor_index(c, x, y, k));
          const double normalised = (v8 - n.mean[k]) / n.stddev[k];
          if (is_quantised(c.type)) {
            const double want = quantise(normalised, n, c.type);
            fail_unless(got == want, "%s: (%u, %u) channel %u: %g, the formula on %g gives %g",
                        what.c_str(), x, y, k, got, v8, want);
          } else {
            worst = std::max(worst, std::abs(got * n.stddev[k] + n.mean[k] - v8));
          }
        }
    // The 8-bit frame's error: libyuv's integer matrix (within 2 levels of
    // the exact one: cpu_range.hpp), then its rounding.
    fail_unless(worst <= 2.5, "%s: %g levels from the normalised 8-bit output", what.c_str(),
                worst);
    gst_buffer_unmap(tensor, &map);
    gst_buffer_unref(tensor);
  }
  gst_video_frame_unmap(&f);
  gst_buffer_unref(bytes);
}

void sweep(const GstVideoInfo &in, guint w, guint h) {
  GstBuffer *frame = zone_plate_frame(in);
  for (bool letterbox : {true, false})
    for (const char *type : kTensorTypes)
      for (const TensorCase &c : shapes_of(in, w, h, letterbox, type))
        check_case(c, frame);
  gst_buffer_unref(frame);
}

}  // namespace

// NV12 97x61 into 45x37 (rows of 135 bytes) and 64x64: letterbox borders
// above and below, or on the sides.
GST_START_TEST(test_nv12_odd_sizes) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 97, 61);
  sweep(in, 45, 37);
  sweep(in, 64, 64);
}
GST_END_TEST;

// RGBA 33x17 (rows of 132 bytes) into 31x9; I420 64x48 into 29x41.
GST_START_TEST(test_rgba_and_i420) {
  sweep(video_info(GST_VIDEO_FORMAT_RGBA, 33, 17), 31, 9);
  sweep(video_info(GST_VIDEO_FORMAT_I420, 64, 48), 29, 41);
}
GST_END_TEST;

// Wide enough for the vector path (24 values a round) and its tail, and
// more rows than one band: 1280x720 into 300x300.
GST_START_TEST(test_large_frame) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 1280, 720);
  GstBuffer *frame = zone_plate_frame(in);
  for (const char *type : kTensorTypes)
    for (bool nchw : {false, true})
      check_case({in, 300, 300, true, type, nchw, !nchw, false}, frame);
  gst_buffer_unref(frame);
}
GST_END_TEST;

// Without dimensions from downstream the tensor keeps the input's size
// (turned), NHWC, three channels, float32 (the first type).
GST_START_TEST(test_fixation) {
  GstHarness *h = gst_harness_new_parse("efconvert backend=cpu video-direction=90r");
  gst_harness_set_caps_str(h, "video/x-raw, format=NV12, width=64, height=48, framerate=30/1",
                           "other/tensors");
  GstBuffer *frame = zone_plate_frame(video_info(GST_VIDEO_FORMAT_NV12, 64, 48));
  fail_unless_equals_int(gst_harness_push(h, frame), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
  const GstStructure *s = gst_caps_get_structure(caps, 0);
  fail_unless(gst_structure_has_name(s, "other/tensors"));
  fail_unless_equals_string(gst_structure_get_string(s, "dimensions"), "3:48:64:1");
  fail_unless_equals_string(gst_structure_get_string(s, "types"), "float32");
  fail_unless_equals_string(gst_structure_get_string(s, "format"), "static");
  gint n = 0, fps_n = 0, fps_d = 0;
  fail_unless(gst_structure_get_int(s, "num_tensors", &n) && n == 1);
  fail_unless(gst_structure_get_fraction(s, "framerate", &fps_n, &fps_d) && fps_n == 30);
  fail_unless_equals_uint64(gst_buffer_get_size(out), 48 * 64 * 3 * 4);
  gst_caps_unref(caps);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

void expect_refused(const char *props, const char *out_caps, const char *says) {
  GstHarness *h = gst_harness_new_parse((std::string("efconvert backend=cpu ") + props).c_str());
  expect_caps_refused(h, "video/x-raw, format=NV12, width=64, height=48", out_caps, says);
  gst_harness_teardown(h);
}

constexpr const char *kFloat = "other/tensors, types=float32, dimensions=3:32:32:1";
constexpr const char *kInt8 = "other/tensors, types=int8, dimensions=3:32:32:1";

// A setting no tensor could use, set before the start (as gst-launch-1.0
// sets them): the property keeps its value, and the element does not run on
// it in place of the one asked for: the start fails with an ERROR naming the
// property, the value, why and what it takes. A good value set afterwards
// lets it start.
void expect_refused_at_start(const char *name, const char *value, const char *says) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  GValue before = G_VALUE_INIT, after = G_VALUE_INIT;
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(conv), name);
  g_value_init(&before, spec->value_type);
  g_value_init(&after, spec->value_type);
  g_object_get_property(G_OBJECT(conv), name, &before);
  // No GLib warning (an unexpected one fails the test): the value reached efconvert.
  gst_util_set_object_arg(G_OBJECT(conv), name, value);
  g_object_get_property(G_OBJECT(conv), name, &after);
  fail_unless(gst_value_compare(&before, &after) == GST_VALUE_EQUAL, "%s=%s was taken", name,
              value);
  const std::string error = start_error(conv);
  const std::string named = std::string(name) + "=" + value + " refused: ";
  fail_unless(error.find(named) != std::string::npos && error.find(says) != std::string::npos &&
                  error.find(std::string(name) + " takes ") != std::string::npos,
              "%s=%s: \"%s\"", name, value, error.c_str());
  g_object_set_property(G_OBJECT(conv), name, &before);
  fail_unless(start_error(conv).empty());
  g_value_unset(&before);
  g_value_unset(&after);
  gst_object_unref(conv);
}

}  // namespace

// Bad settings and caps: refused when set where no tensor could take them
// (the start fails naming them), else at negotiation with an error on the
// bus naming what is wrong; never a tensor.
GST_START_TEST(test_bad_settings_refused) {
  for (auto [name, value, says] : {
           std::tuple{"std", "<0>", "std 0 of channel 0 is not above 0"},
           std::tuple{"std", "<-1>", "std -1 of channel 0 is not above 0"},
           std::tuple{"std", "<1, 0, 1>", "std 0 of channel 1 is not above 0"},
           std::tuple{"std", "<1, 2>", "std has 2 values"},
           std::tuple{"std", "<>", "std has 0 values"},
           std::tuple{"mean", "<1, 2>", "mean has 2 values"},
           std::tuple{"mean", "<1, 2, 3, 4>", "mean has 4 values"},
           std::tuple{"mean", "<>", "mean has 0 values"},
           std::tuple{"quant-scale", "0", "quant-scale 0 is not a finite number above 0"},
           std::tuple{"quant-scale", "-0.5", "quant-scale -0.5 is not a finite number"},
           std::tuple{"quant-zero-point", "300", "lies outside every tensor type"},
           std::tuple{"quant-zero-point", "-129", "lies outside every tensor type"},
       })
    expect_refused_at_start(name, value, says);
  // What only the negotiated tensor rules out: at negotiation.
  expect_refused("mean=<1,2,3>", "other/tensors, types=float32, dimensions=1:32:32:1",
                 "the tensor has 1");
  expect_refused("quant-zero-point=200", kInt8, "quant-zero-point 200 lies outside int8");
  expect_refused("quant-zero-point=-1", "other/tensors, types=uint8, dimensions=3:32:32:1",
                 "lies outside uint8");
  expect_refused("std=<0.001>", "other/tensors, types=float16, dimensions=3:32:32:1",
                 "beyond float16");
}
GST_END_TEST;

// The same from gst-launch-1.0, as a user runs it: it fails (a non-zero
// exit status) and prints the error naming the setting, never runs the
// model's input un-normalised.
GST_START_TEST(test_bad_settings_in_gst_launch) {
  for (auto [props, says] : {
           std::pair{"std=\"<0>\"", "std=<0> refused: std 0 of channel 0 is not above 0"},
           std::pair{"std=\"<1, -2, 1>\"", "std=<1, -2, 1> refused"},
           std::pair{"mean=\"<1, 2>\"", "mean=<1, 2> refused: mean has 2 values"},
           std::pair{"std=\"<>\"", "std=<> refused: std has 0 values"},
           std::pair{"quant-scale=0", "quant-scale=0 refused"},
           std::pair{"quant-scale=-1", "quant-scale=-1 refused"},
           std::pair{"quant-zero-point=1000", "quant-zero-point=1000 refused"},
           std::pair{"attach-tensor=\"other/tensors,format=flexible\"",
                     "efconvert makes no such tensor"},
           std::pair{"attach-tensor=\"video/x-raw,format=RGB\"", "are no tensor caps"},
       }) {
    const std::string tensor =
        std::string(props).rfind("attach", 0) == 0 ? "" : "! other/tensors,types=uint8 ";
    const LaunchRun run = run_gst_launch(
        std::string("videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! efconvert ") +
        props + " " + tensor + "! fakesink");
    fail_unless(run.status != 0 && run.output.find(says) != std::string::npos, "%s: status %d: %s",
                props, run.status, run.output.c_str());
  }
  // A good line runs, to the end.
  const LaunchRun good = run_gst_launch(
      "videotestsrc num-buffers=2 ! video/x-raw,width=64,height=48 ! efconvert \"std=<58.4>\" "
      "quant-scale=0.5 ! other/tensors,types=uint8 ! fakesink");
  fail_unless(good.status == 0, "status %d: %s", good.status, good.output.c_str());
}
GST_END_TEST;

namespace {

const GstVideoInfo kOddNv12 = video_info(GST_VIDEO_FORMAT_NV12, 193, 107);

// Negotiates `out_caps` of odd NV12 frames and pushes three of them, as a
// source would: each is not-negotiated. The pad sends the refused caps
// event again before every later frame and serialized query, each a call
// of set_caps with the same caps. The ERROR messages posted meanwhile, each
// of which must name `says`.
int refusals_posted(GstHarness *h, GstBus *bus, const char *out_caps, const char *says) {
  gst_harness_set_caps(h, caps_for(kOddNv12), gst_caps_from_string(out_caps));
  for (int frame = 0; frame < 3; ++frame)
    fail_unless_equals_int(
        gst_harness_push(h, gst_buffer_new_allocate(nullptr, kOddNv12.size, nullptr)),
        GST_FLOW_NOT_NEGOTIATED);
  int errors = 0;
  while (GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR)) {
    GError *error = nullptr;
    gst_message_parse_error(msg, &error, nullptr);
    fail_unless(strstr(error->message, says) != nullptr, "\"%s\" does not say \"%s\"",
                error->message, says);
    ++errors;
    g_error_free(error);
    gst_message_unref(msg);
  }
  return errors;
}

// `props` refused for `out_caps`: one ERROR, and one again after a restart
// (a new negotiation).
void expect_refused_once(const char *props, const char *out_caps, const char *says) {
  GstHarness *h = gst_harness_new_parse((std::string("efconvert backend=cpu ") + props).c_str());
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(refusals_posted(h, bus, out_caps, says), 1);
  gst_element_set_state(h->element, GST_STATE_NULL);
  gst_element_set_state(h->element, GST_STATE_PLAYING);
  fail_unless_equals_int(refusals_posted(h, bus, out_caps, says), 1);
  release_bus(bus);
  gst_harness_teardown(h);
}

}  // namespace

// A refusal at negotiation is one ERROR on the bus, however often the
// refused caps come again.
GST_START_TEST(test_refusal_posted_once) {
  constexpr const char *kUint8 =
      "other/tensors, format=static, num_tensors=1, types=uint8, dimensions=3:97:61:1";
  expect_refused_once("quant-zero-point=-14", kUint8,
                      "quant-zero-point -14 lies outside uint8 (0 to 255)");
  expect_refused_once("mean=<1,2,3>", "other/tensors, types=float32, dimensions=1:32:32:1",
                      "mean has 3 values");
  expect_refused_once("std=<1,2,3>", "other/tensors, types=float32, dimensions=1:32:32:1",
                      "std has 3 values");
  expect_refused_once("std=<0.001>", "other/tensors, types=float16, dimensions=3:32:32:1",
                      "beyond float16");
  expect_refused_once("", "other/tensors, types=float32, dimensions=3:32:32:2", "a batch of 1");
  // A setting changed is a new configuration: refused again, with its value.
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu quant-zero-point=-14");
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(refusals_posted(h, bus, kUint8, "quant-zero-point -14"), 1);
  g_object_set(harness_element(h, "conv"), "quant-zero-point", -15, nullptr);
  fail_unless_equals_int(refusals_posted(h, bus, kUint8, "quant-zero-point -15"), 1);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_bad_caps_refused) {
  expect_refused("", "other/tensors, types=float32, dimensions=4:32:32:1",
                 "neither NHWC (C:W:H:1) nor NCHW");
  expect_refused("", "other/tensors, types=float32, dimensions=3:32:32:2", "a batch of 1");
  expect_refused("", "other/tensors, types=float32, dimensions=3:32:x:1", "positive integers");
  expect_refused("", "other/tensors, types=float32, dimensions=3:0:32:1", "positive integers");
  expect_refused("", "other/tensors, types=float32, dimensions=3:20000:32:1",
                 "exceeds the CPU path's maximum frame side 16384");
  // What efconvert never makes it never offers: such caps do not negotiate.
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  GstPad *src = gst_element_get_static_pad(conv, "src");
  for (const char *never : {"other/tensors, types=int32", "other/tensors, num_tensors=2",
                            "other/tensors, format=flexible"}) {
    GstCaps *filter = gst_caps_from_string(never);
    GstCaps *offered = gst_pad_query_caps(src, filter);
    fail_unless(gst_caps_is_empty(offered), "%s offered", never);
    gst_caps_unref(offered);
    gst_caps_unref(filter);
  }
  GstCaps *filter = gst_caps_from_string("other/tensors, types=float16");
  GstCaps *offered = gst_pad_query_caps(src, filter);
  fail_if(gst_caps_is_empty(offered));
  gst_caps_unref(offered);
  gst_caps_unref(filter);
  gst_object_unref(src);
  gst_object_unref(conv);
}
GST_END_TEST;

// dimensions=3:32 unquoted is no string but a flagset (GStreamer reads
// a:b so): the error names the dimensions as the caps hold them and what
// efconvert takes, not "dimensions (none)".
GST_START_TEST(test_flagset_dimensions_named) {
  const std::string error = launch_error(
      "videotestsrc num-buffers=1 ! efconvert ! other/tensors,dimensions=3:32 ! "
      "fakesink");
  fail_unless(error.find("dimensions=(GstFlagSet)2:32 is no string") != std::string::npos &&
                  error.find("C:W:H:1 (NHWC) or W:H:C:1 (NCHW)") != std::string::npos &&
                  error.find("(none)") == std::string::npos,
              "%s", error.c_str());
  // Written as a string, the same rank is a tensor 32 wide, 1 high.
  const std::string good = launch_error(
      "videotestsrc num-buffers=1 ! efconvert ! other/tensors,dimensions=(string)3:32 ! "
      "fakesink");
  fail_unless(good.empty(), "%s", good.c_str());
}
GST_END_TEST;

namespace {

// efconvert's INFO lines while `run` runs.
std::string info_logged(const std::function<void()> &run) {
  std::string said;
  GstLogFunction keep = [](GstDebugCategory *category, GstDebugLevel level, const gchar *,
                           const gchar *, gint, GObject *, GstDebugMessage *message,
                           gpointer text) {
    if (level == GST_LEVEL_INFO &&
        g_strcmp0(gst_debug_category_get_name(category), "efconvert") == 0)
      *static_cast<std::string *>(text) += std::string(gst_debug_message_get(message)) + "\n";
  };
  gst_debug_set_active(TRUE);
  gst_debug_set_threshold_for_name("efconvert", GST_LEVEL_INFO);
  gst_debug_remove_log_function(gst_debug_log_default);  // kept, not printed
  gst_debug_add_log_function(keep, &said, nullptr);
  run();
  gst_debug_remove_log_function(keep);
  gst_debug_add_log_function(gst_debug_log_default, nullptr, nullptr);
  gst_debug_set_threshold_for_name("efconvert", GST_LEVEL_NONE);
  return said;
}

}  // namespace

// NNStreamer lists the innermost dimension first, so PyTorch's (1,3,H,W)
// is W:H:3:1: the negotiated layout is logged at INFO in both orders.
GST_START_TEST(test_layout_logged) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  GstBuffer *frame = zone_plate_frame(in);
  for (auto [caps, says] :
       {std::pair{"other/tensors, types=float32, dimensions=32:24:3:1",
                  "negotiated NCHW float32 tensor (1,3,24,32) = dimensions=32:24:3:1"},
        std::pair{"other/tensors, types=uint8, dimensions=3:32:24:1",
                  "negotiated NHWC uint8 tensor (1,24,32,3) = dimensions=3:32:24:1"}}) {
    const std::string said = info_logged([&] {
      gst_buffer_unref(run_one({caps_text(in), caps, ""}, frame));
    });
    fail_unless(said.find(says) != std::string::npos, "%s: %s", caps, said.c_str());
  }
  gst_buffer_unref(frame);
}
GST_END_TEST;

// A setting made bad while playing is refused when set, against the
// negotiated tensor too (three means for a one-channel tensor): a WARNING
// on the bus names it and says the old value stays, the property reads it
// back and the frames go on converted with it.
GST_START_TEST(test_bad_setting_while_playing) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  gst_harness_set_caps_str(h, "video/x-raw, format=NV12, width=64, height=48",
                           "other/tensors, types=uint8, dimensions=1:32:32:1");
  GstBus *bus = attach_bus(h);
  GstBuffer *frame = zone_plate_frame(video_info(GST_VIDEO_FORMAT_NV12, 64, 48));
  GstBuffer *before = gst_harness_push_and_pull(h, gst_buffer_ref(frame));
  GstElement *conv = harness_element(h, "conv");
  for (auto [name, value, says, kept] :
       {std::tuple{"std", "<0>", "std=<0> refused: std 0 of channel 0", "std keeps its value <1>"},
        std::tuple{"std", "<-2>", "std -2 of channel 0 is not above 0", "std keeps its value <1>"},
        std::tuple{"std", "<>", "std has 0 values", "std keeps its value <1>"},
        std::tuple{"mean", "<1, 2, 3>", "the tensor has 1", "mean keeps its value <0>"},
        std::tuple{"mean", "<1, 2>", "mean has 2 values", "mean keeps its value <0>"},
        std::tuple{"quant-scale", "0", "quant-scale=0 refused", "quant-scale keeps its value 1"},
        std::tuple{"quant-scale", "-3", "quant-scale -3 is not", "quant-scale keeps its value 1"},
        std::tuple{"quant-zero-point", "-1", "lies outside uint8",
                   "quant-zero-point keeps its value 0"},
        std::tuple{"quant-zero-point", "256", "lies outside",
                   "quant-zero-point keeps its value 0"}}) {
    gst_util_set_object_arg(G_OBJECT(conv), name, value);  // no GLib warning either
    const std::string warning = pop_warning(bus);
    fail_unless(warning.find(says) != std::string::npos && warning.find(kept) != std::string::npos,
                "%s=%s: \"%s\"", name, value, warning.c_str());
  }
  gdouble scale = 0;
  gint zero = -1;
  g_object_get(conv, "quant-scale", &scale, "quant-zero-point", &zero, nullptr);
  fail_unless(scale == 1.0 && zero == 0, "quant-scale %g, quant-zero-point %d", scale, zero);
  GstBuffer *after = gst_harness_push_and_pull(h, frame);
  GstMapInfo a, b;
  fail_unless(gst_buffer_map(before, &a, GST_MAP_READ) && gst_buffer_map(after, &b, GST_MAP_READ));
  fail_unless(a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0,
              "a refused setting changed the tensor");
  gst_buffer_unmap(before, &a);
  gst_buffer_unmap(after, &b);
  gst_buffer_unref(before);
  gst_buffer_unref(after);
  fail_unless(pop_error(bus).empty());
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Sets `name` on `element` by `set`; whether the value was refused with a
// warning (it then keeps the old one), by efconvert or by GLib. GLib and
// GStreamer versions differ on NaN and infinities: 1.22's GLib refuses a NaN
// double and takes a NaN array item, Debian 13's the other way round.
bool set_warns(const std::function<void()> &set) {
  return !warnings_during(set).empty();
}

void set_array(GstElement *element, const char *name, std::initializer_list<double> values) {
  GValue array = G_VALUE_INIT;
  g_value_init(&array, GST_TYPE_ARRAY);
  for (double v : values) {
    GValue item = G_VALUE_INIT;
    g_value_init(&item, G_TYPE_DOUBLE);
    g_value_set_double(&item, v);
    gst_value_array_append_value(&array, &item);
    g_value_unset(&item);
  }
  g_object_set_property(G_OBJECT(element), name, &array);
  g_value_unset(&array);
}

// The properties read back as they were set, and their defaults.
GST_START_TEST(test_properties) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  gchar *id = nullptr;
  gdouble scale = 0;
  gint zero = -1;
  g_object_get(conv, "tensor-id", &id, "quant-scale", &scale, "quant-zero-point", &zero, nullptr);
  fail_unless_equals_string(id, "input");
  fail_unless_equals_float(scale, 1.0);
  fail_unless_equals_int(zero, 0);
  g_free(id);
  gst_util_set_object_arg(G_OBJECT(conv), "mean", "<1.5, 2, 3.25>");
  GValue mean = G_VALUE_INIT;
  g_value_init(&mean, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(conv), "mean", &mean);
  fail_unless_equals_int(gst_value_array_get_size(&mean), 3);
  fail_unless_equals_float(g_value_get_double(gst_value_array_get_value(&mean, 2)), 3.25);
  g_value_unset(&mean);
  gst_util_set_object_arg(G_OBJECT(conv), "channel-order", "bgr");
  gint order = 0;
  g_object_get(conv, "channel-order", &order, nullptr);
  fail_unless_equals_int(order, 1);
  gboolean keep = FALSE;
  g_object_get(conv, "keep-borders", &keep, nullptr);
  fail_unless(keep, "keep-borders is on by default");
  g_object_set(conv, "keep-borders", FALSE, nullptr);
  g_object_get(conv, "keep-borders", &keep, nullptr);
  fail_if(keep);
  gst_object_unref(conv);
}
GST_END_TEST;

// attach-tensor: the frame goes through as it came (the same memory, its
// identity and metas) with the tensor made of it attached, the same bytes
// as a tensor output of that frame, mapping back onto the frame.
GST_START_TEST(test_attach_mode) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  const std::string tensor_caps = "other/tensors, types=uint8, dimensions=3:32:32:1";
  GstBuffer *source = zone_plate_frame(in);
  GstBuffer *frame = memfd_frame(in, 0);
  {
    GstMapInfo from, to;
    gst_buffer_map(source, &from, GST_MAP_READ);
    gst_buffer_map(frame, &to, GST_MAP_WRITE);
    std::memcpy(to.data, from.data, from.size);
    gst_buffer_unmap(frame, &to);
    gst_buffer_unmap(source, &from);
  }
  fail_unless(gst_buffer_add_ef_identity_meta(frame, nullptr));
  GstHarness *h = gst_harness_new_parse(
      ("efconvert backend=cpu attach-tensor=\"" + tensor_caps + "\"").c_str());
  const std::string caps = caps_text(in);
  gst_harness_set_caps_str(h, caps.c_str(), caps.c_str());
  GstMemory *memory = gst_buffer_peek_memory(frame, 0);
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  fail_unless(gst_buffer_peek_memory(out, 0) == memory, "the frame's memory did not go through");
  fail_unless(gst_buffer_get_ef_identity_meta(out), "the frame's identity was lost");
  GstEfTensorMeta *meta = gst_buffer_get_ef_tensor_meta(out);
  fail_unless(meta && meta->tensor);
  fail_unless_equals_int(meta->type, GST_EF_TENSOR_TYPE_UINT8);
  fail_unless_equals_int(meta->layout, GST_EF_TENSOR_LAYOUT_NHWC);
  fail_unless(meta->channels == 3 && meta->width == 32 && meta->height == 32);
  gdouble x = 0, y = 0;
  fail_unless(gst_ef_tensor_meta_map_to_input(meta, 16, 16, &x, &y));
  fail_unless(std::abs(x - 32) < 1e-9 && std::abs(y - 24) < 1e-9, "(16, 16) -> (%g, %g)", x, y);
  fail_unless(gst_ef_tensor_meta_map_to_input(meta, 0, 4, &x, &y));
  fail_unless(std::abs(x) < 1e-9 && std::abs(y) < 1e-9, "(0, 4) -> (%g, %g)", x, y);
  GstBuffer *alone = run_one({caps, tensor_caps, ""}, frame);
  GstMapInfo a, b;
  fail_unless(gst_buffer_map(meta->tensor, &a, GST_MAP_READ));
  fail_unless(gst_buffer_map(alone, &b, GST_MAP_READ));
  fail_unless(a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0,
              "the attached tensor differs from the tensor output");
  gst_buffer_unmap(meta->tensor, &a);
  gst_buffer_unmap(alone, &b);
  gst_buffer_unref(alone);
  gst_buffer_unref(out);
  gst_buffer_unref(frame);
  gst_buffer_unref(source);
  gst_harness_teardown(h);
}
GST_END_TEST;

// attach-tensor caps efconvert never makes a tensor of, or no tensor caps:
// refused when set, naming them (the start fails: no frame runs without the
// tensor asked for); frames of a size beyond the limit for the tensor it
// makes: an error at negotiation.
GST_START_TEST(test_attach_refused) {
  for (auto [caps, says] : {std::pair{"other/tensors, types=int32", "makes no such tensor"},
                            std::pair{"other/tensors, format=flexible", "makes no such tensor"},
                            std::pair{"video/x-raw, format=RGB", "are no tensor caps"}}) {
    GstElement *conv = gst_element_factory_make("efconvert", nullptr);
    gst_util_set_object_arg(G_OBJECT(conv), "attach-tensor", caps);
    GstCaps *now = nullptr;
    g_object_get(conv, "attach-tensor", &now, nullptr);
    fail_unless(now == nullptr, "%s was kept", caps);
    const std::string error = start_error(conv);
    fail_unless(
        error.find("attach-tensor=") != std::string::npos && error.find(says) != std::string::npos,
        "%s: \"%s\"", caps, error.c_str());
    gst_object_unref(conv);
  }
  GstHarness *h = gst_harness_new_parse(
      "efconvert backend=cpu attach-tensor=\"other/tensors, types=uint8, "
      "dimensions=3:20000:32:1\"");
  expect_caps_refused(h, "video/x-raw, format=NV12, width=64, height=48",
                      "video/x-raw, format=NV12, width=64, height=48",
                      "exceeds the CPU path's maximum frame side 16384");
  gst_harness_teardown(h);
}
GST_END_TEST;

// attach-tensor decides the caps: set in PAUSED or PLAYING it would not
// apply, so it is refused with a warning naming the state (GStreamer's rule
// for a property mutable in READY), and reads back what runs.
GST_START_TEST(test_attach_refused_while_playing) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  const std::string caps = caps_text(in);
  gst_harness_set_caps_str(h, caps.c_str(), "video/x-raw, format=RGB, width=32, height=32");
  GstBuffer *frame = zone_plate_frame(in);
  gst_buffer_unref(gst_harness_push_and_pull(h, gst_buffer_ref(frame)));
  GstElement *conv = harness_element(h, "conv");
  const std::string said = warnings_during([&] {
    gst_util_set_object_arg(G_OBJECT(conv), "attach-tensor",
                            "other/tensors, types=uint8, dimensions=3:32:32:1");
  });
  fail_unless(
      said.find("attach-tensor can only be set in the NULL or READY state") != std::string::npos &&
          said.find("PLAYING") != std::string::npos,
      "\"%s\"", said.c_str());
  GstCaps *now = nullptr;
  g_object_get(conv, "attach-tensor", &now, nullptr);
  fail_unless(now == nullptr, "attach-tensor reads back what does not run");
  GstBuffer *out = gst_harness_push_and_pull(h, frame);
  fail_if(gst_buffer_get_ef_tensor_meta(out), "a tensor was attached");
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

// NaN or an infinity in mean, std or quant-scale is never used: refused at
// set by GLib (a warning, the old value kept) or clamped by it into range,
// or, where this GLib takes it as it is, refused by efconvert at
// negotiation, on the bus.
GST_START_TEST(test_non_finite_values) {
  for (const char *name : {"mean", "std", "quant-scale"})
    for (double bad : {double(NAN), double(INFINITY)}) {
      GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
      GstElement *conv = harness_element(h, "conv");
      const bool scalar = std::string(name) == "quant-scale";
      const bool warned = set_warns([&] {
        if (scalar)
          g_object_set(conv, name, bad, nullptr);
        else
          set_array(conv, name, {1, bad, 2});
      });
      GValue now = G_VALUE_INIT;
      g_value_init(&now, scalar ? G_TYPE_DOUBLE : GST_TYPE_ARRAY);
      g_object_get_property(G_OBJECT(conv), name, &now);
      bool finite = true;  // GLib may also have clamped it into range, silently
      const guint n = scalar ? 1 : gst_value_array_get_size(&now);
      for (guint i = 0; i < n; ++i)
        finite =
            finite &&
            std::isfinite(g_value_get_double(scalar ? &now : gst_value_array_get_value(&now, i)));
      g_value_unset(&now);
      if (warned || finite) {
        fail_unless(finite, "%s: GLib warned and kept a value that is no finite number", name);
      } else {
        expect_caps_refused(h, "video/x-raw, format=NV12, width=64, height=48",
                            scalar ? kInt8 : kFloat,
                            scalar ? "quant-scale" : "not a finite number");
      }
      gst_harness_teardown(h);
    }
}
GST_END_TEST;

// Built against GStreamer 1.26+ (its analytics headers here, as where the
// plugin was built), a tensor buffer also carries a GstTensorMeta of one
// GstTensor over its own memory, and an attached tensor's frame one over
// the tensor's: row-major dims, the type, tensor-id. (Read through the
// struct: the test links no analytics library.)
GST_START_TEST(test_gst_tensor_meta) {
#if GST_CHECK_VERSION(1, 26, 0) && __has_include(<gst/analytics/gsttensormeta.h>)
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  GstBuffer *frame = zone_plate_frame(in);
  GstBuffer *out = run_one({caps_text(in), "other/tensors, types=int8, dimensions=32:24:3:1",
                            "tensor-id=model-input quant-zero-point=-128"},
                           frame);
  const GType api = g_type_from_name("GstTensorMetaAPI");
  fail_unless(api != 0, "no GstTensorMeta registered");
  auto *meta = reinterpret_cast<GstTensorMeta *>(gst_buffer_get_meta(out, api));
  fail_unless(meta && meta->num_tensors == 1, "no GstTensorMeta of one tensor");
  const GstTensor *t = meta->tensors[0];
  fail_unless_equals_int(t->data_type, GST_TENSOR_DATA_TYPE_INT8);
  fail_unless_equals_int(t->dims_order, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  fail_unless(t->num_dims == 4 && t->dims[0] == 1 && t->dims[1] == 3 && t->dims[2] == 24 &&
              t->dims[3] == 32);
  fail_unless_equals_string(g_quark_to_string(t->id), "model-input");
  fail_unless(gst_buffer_peek_memory(t->data, 0) == gst_buffer_peek_memory(out, 0),
              "the GstTensor is not over the tensor's own memory");
  gst_buffer_unref(out);
  gst_buffer_unref(frame);
#else
  // Before 1.26 there is no GstTensorMeta: nothing to check.
#endif
}
GST_END_TEST;

namespace {

struct OffsetPool {
  gsize size;    // of a tensor
  gsize prefix;  // bytes before each tensor in its memory
};

// Answers efconvert's allocation query with a pool of system memory whose
// tensors lie `prefix` bytes past the alignment efconvert asks for, as a
// downstream pool with a header before each tensor would.
GstPadProbeReturn offer_offset_pool(GstPad *, GstPadProbeInfo *info, gpointer data) {
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  const auto *offered = static_cast<const OffsetPool *>(data);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstBufferPool *pool = gst_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, guint(offered->size), 2, 0);
  GstAllocationParams params;
  gst_allocation_params_init(&params);
  params.prefix = offered->prefix;
  gst_buffer_pool_config_set_allocator(config, nullptr, &params);
  fail_unless(gst_buffer_pool_set_config(pool, config));
  gst_query_add_allocation_pool(query, pool, guint(offered->size), 2, 0);
  gst_object_unref(pool);
  return GST_PAD_PROBE_HANDLED;
}

// One frame through efconvert into the pool offer_offset_pool offers.
GstBuffer *run_offered(const Run &r, GstBuffer *frame, OffsetPool &offered) {
  return convert_one("efconvert backend=cpu " + r.props, r.in_caps, r.out_caps, frame,
                     [&](GstHarness *h) {
                       gst_pad_add_probe(h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
                                         offer_offset_pool, &offered, nullptr);
                     });
}

}  // namespace

// A downstream pool's tensors are the bytes of efconvert's own, wherever
// they start: efconvert asks a pool for a cache line (which a plain pool
// gives), and where a pool puts each tensor past it (a header of 4 bytes,
// 12, an odd 1 for the 8-bit types) the float32 rows peel values to
// stream the rest. Wide rows (the vector path), letterboxed, every type x
// layout.
GST_START_TEST(test_downstream_pool_alignment) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 1280, 720);
  GstBuffer *frame = zone_plate_frame(in);
  for (const char *type : kTensorTypes)
    for (bool nchw : {false, true}) {
      const TensorCase c{in, 300, 300, true, type, nchw, !nchw, false};
      const TensorNormCase n = norms_for(c.type, c.gray).back();
      const Run run{caps_text(in), tensor_caps(c), tensor_props(c, n)};
      GstBuffer *own = run_one(run, frame);
      GstMapInfo want;
      fail_unless(gst_buffer_map(own, &want, GST_MAP_READ));
      const gsize bytes = element_bytes(type);
      for (gsize prefix : {gsize(0), gsize(4), gsize(12), gsize(1)}) {
        if (prefix % bytes)
          continue;  // a value split across its alignment: no pool does that
        OffsetPool offered{want.size, prefix};
        GstBuffer *out = run_offered(run, frame, offered);
        GstMapInfo got;
        fail_unless(gst_buffer_map(out, &got, GST_MAP_READ));
        const auto at = reinterpret_cast<uintptr_t>(got.data);
        fail_unless_equals_int(at % 64, prefix);  // from the offered pool, aligned as asked
        fail_unless_equals_uint64(got.size, want.size);
        fail_unless(std::memcmp(got.data, want.data, want.size) == 0,
                    "%s %s: a tensor %zu bytes past a cache line differs from an aligned one", type,
                    nchw ? "NCHW" : "NHWC", size_t(prefix));
        gst_buffer_unmap(out, &got);
        gst_buffer_unref(out);
      }
      gst_buffer_unmap(own, &want);
      gst_buffer_unref(own);
    }
  gst_buffer_unref(frame);
}
GST_END_TEST;

namespace {

// `frame` with every byte inverted: other content, the same borders.
GstBuffer *inverted(GstBuffer *frame) {
  GstBuffer *copy = gst_buffer_copy_deep(frame);
  GstMapInfo map;
  fail_unless(gst_buffer_map(copy, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < map.size; ++i)
    map.data[i] = guint8(255 - map.data[i]);
  gst_buffer_unmap(copy, &map);
  return copy;
}

bool same_bytes(GstBuffer *a, GstBuffer *b) {
  GstMapInfo x, y;
  fail_unless(gst_buffer_map(a, &x, GST_MAP_READ) && gst_buffer_map(b, &y, GST_MAP_READ));
  const bool same = x.size == y.size && std::memcmp(x.data, y.data, x.size) == 0;
  gst_buffer_unmap(a, &x);
  gst_buffer_unmap(b, &y);
  return same;
}

// `buffer`'s memory alone in it: GStreamer 1.26's GstTensorMeta, which
// efconvert adds to tensors, holds a buffer of its own over the memory, so
// a map for writing would find the memory shared and refuse. An element
// that changes a tensor in place drops it too.
void drop_gst_tensor_meta([[maybe_unused]] GstBuffer *buffer) {
#if GST_CHECK_VERSION(1, 26, 0) && __has_include(<gst/analytics/gsttensormeta.h>)
  if (GstMeta *meta = gst_buffer_get_meta(buffer, GST_TENSOR_META_API_TYPE))
    fail_unless(gst_buffer_remove_meta(buffer, meta));
#endif
}

// An output of efconvert backend=cpu, letterboxed, and a change of
// setting that moves its border's values.
struct BorderCase {
  guint in_w, in_h;
  std::string out_caps;
  std::string changed;  // properties of the change, for a new element
  std::function<void(GstElement *)> change;
  gsize first_row_bytes;
  bool keep = true;  // keep-borders
};

// Frames alternating between two pictures through one element, its pool's
// memories reused: the test maps a memory for writing and changes its first
// row every fifth frame (as an element changing the frame in place would),
// and the setting changes halfway. Every output is byte for byte what a new
// element makes of its frame; borders-kept counts the frames whose border
// rows were left as the memory held them, as the test expects from the
// memories it has seen.
void check_borders_written_once(const BorderCase &c) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, c.in_w, c.in_h);
  const std::string caps = caps_text(in);
  // Four bands where the frame is large enough to be cut (kParallelPixels).
  const std::string props = "letterbox=true fill-color=0xff336699 n-threads=4";
  GstBuffer *frames[2] = {zone_plate_frame(in), nullptr};
  frames[1] = inverted(frames[0]);
  GstBuffer *want[2][2];  // [setting][frame], from new elements
  for (int setting = 0; setting < 2; ++setting)
    for (int f = 0; f < 2; ++f)
      want[setting][f] = run_one({caps, c.out_caps, props + (setting ? c.changed : "")}, frames[f]);
  fail_if(same_bytes(want[0][0], want[0][1]) || same_bytes(want[0][0], want[1][0]));

  GstHarness *h = gst_harness_new_parse(
      ("efconvert name=conv backend=cpu " + props + (c.keep ? "" : " keep-borders=false")).c_str());
  GstElement *conv = harness_element(h, "conv");
  gst_harness_set_caps_str(h, caps.c_str(), c.out_caps.c_str());
  std::map<GstMemory *, int> written_with;  // the setting a memory's borders hold; -1: changed
  guint64 kept = 0;
  constexpr int kFrames = 30;
  for (int i = 0; i < kFrames; ++i) {
    const int setting = i < kFrames / 2 ? 0 : 1;
    if (i == kFrames / 2)
      c.change(conv);
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frames[i % 2])), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    GstMemory *mem = gst_buffer_peek_memory(got, 0);
    const auto seen = written_with.find(mem);
    if (c.keep && seen != written_with.end() && seen->second == setting)
      kept++;
    fail_unless(same_bytes(got, want[setting][i % 2]),
                "%s: frame %d differs from what a new element makes of it", c.out_caps.c_str(), i);
    const bool scribble = i % 5 == 3;
    if (scribble) {
      drop_gst_tensor_meta(got);
      GstMapInfo map;
      fail_unless(gst_memory_map(mem, &map, GST_MAP_WRITE));
      std::memset(map.data, 0x5a, c.first_row_bytes);
      gst_memory_unmap(mem, &map);
    }
    written_with[mem] = scribble ? -1 : setting;
    gst_buffer_unref(got);
  }
  fail_unless(!c.keep || kept >= kFrames / 2,
              "%s: only %" G_GUINT64_FORMAT " of %d frames kept borders", c.out_caps.c_str(), kept,
              kFrames);
  fail_unless_equals_uint64(stat(conv, "borders-kept"), kept);
  gst_harness_teardown(h);
  for (auto &row : want)
    for (GstBuffer *b : row)
      gst_buffer_unref(b);
  for (GstBuffer *f : frames)
    gst_buffer_unref(f);
}

}  // namespace

// A pooled output's letterbox border rows are written once: the CPU
// backend leaves them in a memory it wrote the same rows into last, and
// writes them again after anything maps that memory for writing, or when
// their values change. An NCHW float32 tensor (64x64: 12 border rows above
// and below the content, mean and std set while playing) and an RGB image
// (45x37, rows of 135 bytes: 4 rows above, 5 below; fill-color set), from
// NV12 97x61; and both from 1920x1080 into 640x640, cut into bands (by the
// content alone where the borders are left): the bytes are the same. With
// keep-borders=false every frame writes them (borders-kept stays 0).
GST_START_TEST(test_borders_written_once) {
  const char *imagenet = " mean=<123.675,116.28,103.53> std=<58.395,57.12,57.375>";
  auto set_imagenet = [](GstElement *conv) {
    set_array(conv, "mean", {123.675, 116.28, 103.53});
    set_array(conv, "std", {58.395, 57.12, 57.375});
  };
  auto set_fill = [](GstElement *conv) { g_object_set(conv, "fill-color", 0xff10e0a0u, nullptr); };
  check_borders_written_once({97, 61, "other/tensors, types=float32, dimensions=64:64:3:1",
                              imagenet, set_imagenet, 64 * sizeof(float)});
  check_borders_written_once(
      {97, 61, "video/x-raw, format=RGB, width=45, height=37, pixel-aspect-ratio=1/1",
       " fill-color=0xff10e0a0", set_fill, 45 * 3});
  check_borders_written_once({1920, 1080, "other/tensors, types=float32, dimensions=640:640:3:1",
                              imagenet, set_imagenet, 640 * sizeof(float)});
  check_borders_written_once(
      {1920, 1080, "video/x-raw, format=RGB, width=640, height=640, pixel-aspect-ratio=1/1",
       " fill-color=0xff10e0a0", set_fill, 640 * 3});
  check_borders_written_once({97, 61, "other/tensors, types=float32, dimensions=64:64:3:1",
                              imagenet, set_imagenet, 64 * sizeof(float), false});
}
GST_END_TEST;

namespace {

// What a process the fd went to would do: zeros over the memory's bytes
// through its fd, no map (which the memory's tag cannot see).
void zero_through_fd(GstBuffer *out) {
  GstMemory *mem = gst_buffer_peek_memory(out, 0);
  fail_unless(gst_is_fd_memory(mem));
  const std::vector<char> zeros(mem->size, 0);
  fail_unless_equals_int64(
      pwrite(gst_fd_memory_get_fd(mem), zeros.data(), zeros.size(), off_t(mem->offset)),
      gssize(zeros.size()));
}

// keep-borders true, then false while a writer zeroes outputs through
// their fds (one held from before the switch, written after it), then true
// again: every frame is a new element's.
void check_keep_borders_switch(guint in_w, guint in_h, const std::string &out_caps) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, in_w, in_h);
  const std::string caps = caps_text(in);
  const std::string props = "letterbox=true fill-color=0xff336699";
  GstBuffer *frames[2] = {zone_plate_frame(in), nullptr};
  frames[1] = inverted(frames[0]);
  GstBuffer *want[2];
  for (int f = 0; f < 2; ++f)
    want[f] = run_one({caps, out_caps, props}, frames[f]);

  GstHarness *h = gst_harness_new_parse(("efconvert name=conv backend=cpu " + props).c_str());
  GstElement *conv = harness_element(h, "conv");
  gst_harness_set_caps_str(h, caps.c_str(), out_caps.c_str());
  constexpr int kFalseAt = 5, kTrueAt = 30, kFrames = 60;
  GstBuffer *held = nullptr;  // an output of the first true period, written while false
  GstMemory *held_memory = nullptr;
  bool held_seen_again = false;
  for (int i = 0; i < kFrames; ++i) {
    if (i == kFalseAt) {
      g_object_set(conv, "keep-borders", FALSE, nullptr);
      zero_through_fd(held);
    }
    if (i == kTrueAt) {
      g_object_set(conv, "keep-borders", TRUE, nullptr);
      gst_clear_buffer(&held);  // back to the pool, not written by efconvert since
    }
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frames[i % 2])), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    fail_unless(same_bytes(got, want[i % 2]),
                "%s: frame %d differs from what a new element makes of it (keep-borders %s)",
                out_caps.c_str(), i, i >= kFalseAt && i < kTrueAt ? "false" : "true");
    if (i >= kTrueAt && gst_buffer_peek_memory(got, 0) == held_memory)
      held_seen_again = true;
    if (i == kFalseAt - 1) {
      held = gst_buffer_ref(got);
      held_memory = gst_buffer_peek_memory(got, 0);
    }
    if (i >= kFalseAt && i < kTrueAt)
      zero_through_fd(got);
    gst_buffer_unref(got);
  }
  fail_unless(held_seen_again, "%s: the held memory never came back", out_caps.c_str());
  fail_unless(stat(conv, "borders-kept") > 0, "%s: no borders kept after the switch back",
              out_caps.c_str());
  gst_harness_teardown(h);
  for (GstBuffer *b : want)
    gst_buffer_unref(b);
  for (GstBuffer *f : frames)
    gst_buffer_unref(f);
}

}  // namespace

// Float tensors carry the average's full precision, not an 8-bit
// rounding of it: text and noise in 8 bits at 2:1 and odd reductions and
// a 10-bit gradient, float32 and float16, against the exact values
// (tensor_precision.hpp); the gradient's values between the 8-bit levels.
GST_START_TEST(test_float_precision) {
  check_precision("efconvert backend=cpu");
}
GST_END_TEST;

namespace {

// Mean and largest difference, in levels, of a float32 tensor of the
// defaults (its values the levels themselves, NHWC) from `image`'s bytes.
std::pair<double, double> apart_from_image(GstBuffer *tensor, GstBuffer *image,
                                           const GstVideoInfo &info) {
  GstVideoFrame f;
  GstVideoInfo image_info = info;
  fail_unless(gst_video_frame_map(&f, &image_info, image, GST_MAP_READ));
  GstMapInfo map;
  fail_unless(gst_buffer_map(tensor, &map, GST_MAP_READ));
  const guint channels = GST_VIDEO_INFO_N_COMPONENTS(&info);
  const auto *values = reinterpret_cast<const float *>(map.data);
  double sum = 0, worst = 0;
  for (gint y = 0; y < info.height; ++y)
    for (gint x = 0; x < info.width; ++x)
      for (guint k = 0; k < channels; ++k) {
        const guint8 byte = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(
            &f, 0))[gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0) + gsize(x) * channels + k];
        const double d = std::abs(values[(gsize(y) * info.width + x) * channels + k] - byte);
        sum += d;
        worst = std::max(worst, d);
      }
  gst_buffer_unmap(tensor, &map);
  gst_video_frame_unmap(&f);
  return {sum / (double(info.width) * info.height * channels), worst};
}

}  // namespace

// keep-borders=false is for outputs changed through their fds, which no
// tag sees: no tag written before or while it is false is trusted once it
// is true again, for tensors and images alike.
GST_START_TEST(test_keep_borders_switch) {
  check_keep_borders_switch(97, 61, "other/tensors, types=float32, dimensions=64:64:3:1");
  check_keep_borders_switch(97, 61,
                            "video/x-raw, format=RGB, width=45, height=37, pixel-aspect-ratio=1/1");
}
GST_END_TEST;

// Every way a float tensor is made on the CPU (each source layout: YUV
// semi-planar, planar, packed and 4:4:4, 4-byte and 3-byte RGB, gray, and
// 10 bits; at 1:1, enlarged, reduced mildly and strongly; turned, flipped,
// nearest; three channels and one) against the RGB or GRAY8 frame of the
// same conversion: within that frame's own error (2.5 levels at worst, 4.5
// where it is libyuv's bilinear filter, 0.7 on average), whatever the
// path took.
GST_START_TEST(test_float_paths) {
  const GstVideoFormat formats[] = {
      GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,  GST_VIDEO_FORMAT_YUY2,
      GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA,  GST_VIDEO_FORMAT_BGRx,
      GST_VIDEO_FORMAT_RGB,  GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_P010_10LE};
  const std::pair<guint, guint> sizes[] = {{97, 61}, {45, 29}, {80, 50}, {150, 100}};
  const char *settings[] = {"", "video-direction=90r", "video-direction=horiz", "method=nearest"};
  for (GstVideoFormat format : formats) {
    const GstVideoInfo in = video_info(format, 97, 61);
    GstBuffer *frame = zone_plate_frame(in);
    for (const auto &[w, h] : sizes)
      for (const char *set : settings)
        for (bool gray : {false, true}) {
          const GstVideoInfo image =
              video_info(gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB, w, h);
          const std::string dims = std::string(gray ? "1" : "3") + ":" + std::to_string(w) + ":" +
                                   std::to_string(h) + ":1";
          const std::string props = std::string("letterbox=false ") + set;
          GstBuffer *bytes = run_one({caps_text(in), caps_text(image), props}, frame);
          GstBuffer *tensor = run_one(
              {caps_text(in), "other/tensors, types=float32, dimensions=" + dims, props}, frame);
          const auto [mean, worst] = apart_from_image(tensor, bytes, image);
          // A mild reduction's 8-bit frame is libyuv's bilinear filter, whose
          // 7-bit weights add up to two levels at the zone plate's edges.
          const bool mild = w == 80;
          fail_unless(mean <= 0.7 && worst <= (mild ? 4.5 : 2.5),
                      "%s 97x61 -> %s (%s): %.3f levels from the 8-bit frame on average, %.3f "
                      "at worst",
                      gst_video_format_to_string(format), dims.c_str(), set, mean, worst);
          gst_buffer_unref(tensor);
          gst_buffer_unref(bytes);
        }
    gst_buffer_unref(frame);
  }
}
GST_END_TEST;

static Suite *tensor_suite() {
  Suite *s = suite_create("efconvert_tensor");
  TCase *tc = tcase_create("tensor");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_nv12_odd_sizes);
  tcase_add_test(tc, test_float_precision);
  tcase_add_test(tc, test_float_paths);
  tcase_add_test(tc, test_rgba_and_i420);
  tcase_add_test(tc, test_large_frame);
  tcase_add_test(tc, test_downstream_pool_alignment);
  tcase_add_test(tc, test_fixation);
  tcase_add_test(tc, test_bad_settings_refused);
  tcase_add_test(tc, test_bad_settings_in_gst_launch);
  tcase_add_test(tc, test_bad_caps_refused);
  tcase_add_test(tc, test_flagset_dimensions_named);
  tcase_add_test(tc, test_layout_logged);
  tcase_add_test(tc, test_refusal_posted_once);
  tcase_add_test(tc, test_bad_setting_while_playing);
  tcase_add_test(tc, test_properties);
  tcase_add_test(tc, test_non_finite_values);
  tcase_add_test(tc, test_gst_tensor_meta);
  tcase_add_test(tc, test_attach_mode);
  tcase_add_test(tc, test_borders_written_once);
  tcase_add_test(tc, test_keep_borders_switch);
  tcase_add_test(tc, test_attach_refused);
  tcase_add_test(tc, test_attach_refused_while_playing);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(tensor);
