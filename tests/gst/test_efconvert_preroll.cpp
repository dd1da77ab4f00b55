// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert with read-backs in flight (readback-depth 0-4) never holds back
// the frames a sink needs to preroll: in one branch of a tee whose other
// branch buffers one frame or none (that branch's sink prerolls and blocks
// the tee, so no later frame comes), after a pause in PLAYING, after a
// flushing seek in PLAYING, and behind a source that gives one frame. Every
// wait is bounded: a hang fails its case with what it waited for.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <mutex>
#include <string>
#include <vector>

#include "check_gl_main.hpp"
#include "common/state_name.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

constexpr GstClockTime kBound = 10 * GST_SECOND;  // far beyond any preroll here
constexpr guint kDepths = 5;                      // readback-depth 0..4
constexpr int kFrames = 12;

// The outputs that a read-back leaves in flight on llvmpipe: RGB rows of 450
// bytes (no multiple of 16: rendered apart and read back), and, with the
// renderer taken for a GPU, the read-back into pack memory that a GPU's path
// takes (160 x 160, which llvmpipe would render in place otherwise).
struct Output {
  const char *kind;  // EF_GL_RENDERER_KIND
  int side;
};
constexpr Output kOutputs[] = {{"software", 150}, {"hardware", 160}};

// The PTS of every buffer our sink rendered, or prerolled on.
struct Seen {
  std::mutex lock;
  std::vector<GstClockTime> pts;
  size_t count() {
    std::lock_guard guard(lock);
    return pts.size();
  }
};

void on_buffer(GstElement *, GstBuffer *buffer, GstPad *, gpointer data) {
  auto *seen = static_cast<Seen *>(data);
  std::lock_guard guard(seen->lock);
  seen->pts.push_back(GST_BUFFER_PTS(buffer));
}

std::string output_caps(const Output &o) {
  return "video/x-raw,format=RGB,width=" + std::to_string(o.side) +
         ",height=" + std::to_string(o.side);
}

GstElement *launch(const std::string &description, Seen &seen, const char *signal = "handoff") {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description.c_str(), &error);
  fail_unless(pipeline != nullptr, "%s: %s", description.c_str(), error ? error->message : "");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
  g_signal_connect(sink, signal, G_CALLBACK(on_buffer), &seen);
  gst_object_unref(sink);
  return pipeline;
}

GstElement *by_name(GstElement *pipeline, const char *name) {
  GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), name);
  gst_object_unref(e);  // the bin keeps it
  return e;
}

// The pipeline's state change completes within the bound (an ERROR fails).
void expect_settled(GstElement *pipeline, const char *what, const std::string &where) {
  GstState state;
  const GstStateChangeReturn ret = gst_element_get_state(pipeline, &state, nullptr, kBound);
  fail_unless(ret == GST_STATE_CHANGE_SUCCESS,
              "%s: %s did not complete within 10 s (%s): frames held from a preroll?",
              where.c_str(), what, ef::gst::state_change_name(ret));
}

// The next EOS or ERROR within the bound: EOS expected.
void expect_eos(GstElement *pipeline, const std::string &where) {
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *msg =
      gst_bus_timed_pop_filtered(bus, kBound, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  gst_object_unref(bus);
  fail_unless(msg != nullptr, "%s: no EOS within 10 s", where.c_str());
  const bool eos = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS;
  gst_message_unref(msg);
  fail_unless(eos, "%s: an error instead of EOS", where.c_str());
}

// Polls until the sink saw `n` buffers, within the bound.
void expect_frames(Seen &seen, size_t n, const std::string &where) {
  const gint64 until = g_get_monotonic_time() + gint64(kBound / GST_USECOND);
  while (seen.count() < n && g_get_monotonic_time() < until)
    g_usleep(5000);
  fail_unless(seen.count() >= n, "%s: %zu frames of %zu within 10 s", where.c_str(), seen.count(),
              n);
}

// Each frame once, in order: frame numbers (30 fps PTS) one apart.
guint64 frame_number(GstClockTime pts) {
  return gst_util_uint64_scale_round(pts, 30, GST_SECOND);
}

void expect_sequence(Seen &seen, size_t from, const std::string &where) {
  std::lock_guard guard(seen.lock);
  for (size_t i = from + 1; i < seen.pts.size(); ++i)
    fail_unless(frame_number(seen.pts[i]) == frame_number(seen.pts[i - 1]) + 1,
                "%s: frame %zu at %" GST_TIME_FORMAT " after %" GST_TIME_FORMAT, where.c_str(), i,
                GST_TIME_ARGS(seen.pts[i]), GST_TIME_ARGS(seen.pts[i - 1]));
}

std::string source(int frames) {
  return "videotestsrc num-buffers=" + std::to_string(frames) +
         " pattern=ball ! video/x-raw,format=NV12,width=320,height=240,framerate=30/1";
}

std::string converter(guint depth) {
  return "efconvert name=conv backend=gl readback-depth=" + std::to_string(depth);
}

void stop(GstElement *pipeline) {
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  g_unsetenv("EF_GL_RENDERER_KIND");
}

}  // namespace

// The tee: our branch first (so it gets each frame before the other branch
// can block the tee), the other branch a queue of one frame, or no queue at
// all. The pipeline prerolls, plays to EOS, and our sink gets every frame
// once, in order, each read back.
GST_START_TEST(test_tee_preroll) {
  const guint depth = guint(__i__) % kDepths;
  const bool other_queue = (guint(__i__) / kDepths) % 2 == 0;
  const Output &o = kOutputs[guint(__i__) / (2 * kDepths)];
  g_setenv("EF_GL_RENDERER_KIND", o.kind, TRUE);
  const std::string where = std::string("depth ") + std::to_string(depth) + ", other branch " +
                            (other_queue ? "queue of 1" : "no queue") + ", " + o.kind;
  Seen seen;
  GstElement *pipeline =
      launch(source(kFrames) + " ! tee name=t t. ! queue ! " + converter(depth) + " ! " +
                 output_caps(o) + " ! fakesink name=out signal-handoffs=true sync=false t. ! " +
                 (other_queue ? "queue max-size-buffers=1 ! " : "") + "fakesink sync=false",
             seen);
  gst_element_set_state(pipeline, GST_STATE_PAUSED);
  expect_settled(pipeline, "the preroll", where);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  expect_eos(pipeline, where);
  fail_unless_equals_int(int(seen.count()), kFrames);
  expect_sequence(seen, 0, where);
  GstElement *conv = by_name(pipeline, "conv");
  fail_unless_equals_uint64(stat(conv, "frames"), kFrames);
  fail_unless_equals_uint64(stat(conv, "readbacks"), kFrames);
  stop(pipeline);
}
GST_END_TEST;

// Paused in PLAYING while frames are held, then a flushing seek in
// PLAYING: each time the sinks preroll again (the other branch's blocks
// the tee), and the frames go on in order. The sinks keep the clock, so
// that our branch's queue is not full when the tee stops (a tee blocked on
// a full queue starves the other branch whatever the element does).
GST_START_TEST(test_pause_and_seek) {
  const guint depth = guint(__i__);
  const std::string where = "depth " + std::to_string(depth);
  Seen seen;
  GstElement *pipeline = launch(source(-1) + " ! tee name=t t. ! queue ! " + converter(depth) +
                                    " ! " + output_caps(kOutputs[0]) +
                                    " ! fakesink name=out signal-handoffs=true sync=true t. ! "
                                    "queue max-size-buffers=1 ! fakesink sync=true",
                                seen);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  expect_settled(pipeline, "the start", where);
  expect_frames(seen, 8, where);
  gst_element_set_state(pipeline, GST_STATE_PAUSED);
  expect_settled(pipeline, "the pause", where);
  const size_t paused = seen.count();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  expect_settled(pipeline, "playing again", where);
  expect_frames(seen, paused + 4, where);
  expect_sequence(seen, 0, where);
  fail_unless(gst_element_seek_simple(pipeline, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH, 0));
  expect_settled(pipeline, "the flushing seek", where);
  const size_t before_seek = seen.count();
  expect_frames(seen, before_seek + 4, where);
  stop(pipeline);
}
GST_END_TEST;

// A source that gives one frame and waits: the sink prerolls on it.
GST_START_TEST(test_one_frame_prerolls) {
  const guint depth = guint(__i__);
  const std::string where = "depth " + std::to_string(depth);
  GstVideoInfo in;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_NV12, 320, 240);
  in.fps_n = 30;
  in.fps_d = 1;
  GstCaps *caps = caps_for(in);
  gchar *caps_text = gst_caps_to_string(caps);
  gst_caps_unref(caps);
  Seen seen;
  GstElement *pipeline = launch(std::string("appsrc name=src format=time caps=\"") + caps_text +
                                    "\" ! " + converter(depth) + " ! " + output_caps(kOutputs[0]) +
                                    " ! fakesink name=out signal-handoffs=true",
                                seen, "preroll-handoff");
  g_free(caps_text);
  gst_element_set_state(pipeline, GST_STATE_PAUSED);
  GstBuffer *frame = system_frame(in, 1);
  GST_BUFFER_PTS(frame) = 0;
  GST_BUFFER_DURATION(frame) = gst_util_uint64_scale_int(GST_SECOND, 1, 30);
  fail_unless_equals_int(gst_app_src_push_buffer(GST_APP_SRC(by_name(pipeline, "src")), frame),
                         GST_FLOW_OK);
  expect_settled(pipeline, "the preroll on one frame", where);
  fail_unless_equals_int(int(seen.count()), 1);
  stop(pipeline);
}
GST_END_TEST;

static Suite *preroll_suite() {
  Suite *s = suite_create("efconvert_preroll");
  TCase *tc = tcase_create("preroll");
  // Each wait is bounded at 10 s: a hang fails its case long before this.
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_tee_preroll, 0, kDepths * 2 * G_N_ELEMENTS(kOutputs));
  tcase_add_loop_test(tc, test_pause_and_seek, 0, kDepths);
  tcase_add_loop_test(tc, test_one_frame_prerolls, 0, kDepths);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, preroll_suite, Needs::Gl);
}
