// SPDX-License-Identifier: LGPL-2.1-or-later
// The max-errors rule every element follows for a frame it cannot use:
// warnings and drops while the run of bad frames is within max-errors, an
// error beyond it, never with -1, and a good frame ending the run.
#include <gst/check/gstcheck.h>

#include <string>
#include <vector>

#include "common/frame_errors.hpp"

using ef::gst::FrameErrors;
using ef::gst::refuse_frame;

namespace {

// An element with a bus of its own, to read what refuse_frame posts.
struct Poster {
  GstElement *element = gst_bin_new("poster");
  GstBus *bus = gst_bus_new();
  Poster() { gst_element_set_bus(element, bus); }
  ~Poster() {
    gst_element_set_bus(element, nullptr);
    gst_object_unref(bus);
    gst_object_unref(element);
  }
  // "W" for a warning, "E" for an error, with its text, per message posted.
  std::vector<std::string> messages() {
    std::vector<std::string> out;
    while (GstMessage *msg = gst_bus_pop(bus)) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING) {
        gst_message_parse_warning(msg, &error, &debug);
        out.push_back(std::string("W ") + error->message + " | " + debug);
      } else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
        gst_message_parse_error(msg, &error, &debug);
        out.push_back(std::string("E ") + error->message + " | " + debug);
      }
      if (error)
        g_error_free(error);
      g_free(debug);
      gst_message_unref(msg);
    }
    return out;
  }
  GstFlowReturn bad(FrameErrors &errors) {
    return refuse_frame(element, errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid input frame: buffer is truncated", "plane 0");
  }
};

}  // namespace

// The default: the first bad frame is an error (the pipeline stops).
GST_START_TEST(test_default_fails_first) {
  Poster p;
  FrameErrors errors;
  fail_unless_equals_int(errors.max_errors(), 0);
  fail_unless_equals_int(p.bad(errors), GST_FLOW_ERROR);
  auto msgs = p.messages();
  fail_unless_equals_int(msgs.size(), 1);
  fail_unless(msgs[0].rfind("E Invalid input frame: buffer is truncated", 0) == 0, "%s",
              msgs[0].c_str());
  fail_unless(msgs[0].find("plane 0") != std::string::npos, "%s", msgs[0].c_str());
  fail_unless_equals_uint64(errors.dropped(), 0);
}
GST_END_TEST;

// max-errors 2: two warnings and drops, the third in a row an error.
GST_START_TEST(test_max_errors_two) {
  Poster p;
  FrameErrors errors;
  errors.set_max_errors(2);
  fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  fail_unless_equals_int(p.bad(errors), GST_FLOW_ERROR);
  auto msgs = p.messages();
  fail_unless_equals_int(msgs.size(), 3);
  fail_unless(msgs[0][0] == 'W' && msgs[1][0] == 'W' && msgs[2][0] == 'E');
  fail_unless(
      msgs[1].find("2 consecutive bad frame(s), max-errors 2: frame dropped") != std::string::npos,
      "%s", msgs[1].c_str());
  fail_unless_equals_uint64(errors.dropped(), 2);
}
GST_END_TEST;

// A good frame ends the run: bad frames apart never add up to an error.
GST_START_TEST(test_good_frame_resets) {
  Poster p;
  FrameErrors errors;
  errors.set_max_errors(1);
  for (int i = 0; i < 5; ++i) {
    fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
    errors.good_frame();
  }
  fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  fail_unless_equals_int(p.bad(errors), GST_FLOW_ERROR);
  fail_unless_equals_uint64(errors.dropped(), 6);
}
GST_END_TEST;

// -1: never an error, every bad frame a warning.
GST_START_TEST(test_minus_one_never_fails) {
  Poster p;
  FrameErrors errors;
  errors.set_max_errors(-1);
  for (int i = 0; i < 1000; ++i)
    fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  auto msgs = p.messages();
  fail_unless_equals_int(msgs.size(), 1000);
  for (const std::string &m : msgs)
    fail_unless(m[0] == 'W', "%s", m.c_str());
  fail_unless_equals_uint64(errors.dropped(), 1000);
}
GST_END_TEST;

// A new stream (stop, start) does not inherit the last one's run.
GST_START_TEST(test_reset_starts_a_new_run) {
  Poster p;
  FrameErrors errors;
  errors.set_max_errors(1);
  fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  errors.reset();
  fail_unless_equals_int(p.bad(errors), GST_BASE_TRANSFORM_FLOW_DROPPED);
  fail_unless_equals_int(p.bad(errors), GST_FLOW_ERROR);
}
GST_END_TEST;

static Suite *frame_errors_suite() {
  Suite *s = suite_create("frame_errors");
  TCase *tc = tcase_create("rule");
  tcase_add_test(tc, test_default_fails_first);
  tcase_add_test(tc, test_max_errors_two);
  tcase_add_test(tc, test_good_frame_resets);
  tcase_add_test(tc, test_minus_one_never_fails);
  tcase_add_test(tc, test_reset_starts_a_new_run);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(frame_errors);
