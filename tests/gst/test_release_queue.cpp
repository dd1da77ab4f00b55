// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge's ReleaseQueue below the element: a held frame goes back to its
// producer when its gate is armed, or after its timeout with the handler
// called, and release_all() lets go of everything at once.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gst/check/gstcheck.h>

#include "release_queue.hpp"

using namespace std::chrono_literals;
using ef::SlotGate;
using ef::SlotRelease;
using ef::gst::ReleaseQueue;

namespace {

// Whether `buffer` (held once by the test, plus whatever the queue holds)
// has only the test's reference left within `limit`.
bool released_within(GstBuffer *buffer, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (GST_MINI_OBJECT_REFCOUNT_VALUE(buffer) > 1) {
    if (std::chrono::steady_clock::now() > end)
      return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

GST_START_TEST(test_held_until_armed) {
  std::atomic<int> timeouts{0};
  ReleaseQueue queue([&](GstBuffer *, uint64_t) { ++timeouts; });
  auto gate = std::make_shared<SlotGate>();
  GstBuffer *buffer = gst_buffer_new();
  queue.hold(buffer, SlotRelease(gate, 1), 0, 10s);
  fail_unless_equals_int(queue.held(), 1);
  fail_if(released_within(buffer, 100ms), "released before its gate was armed");
  SlotRelease(gate, 1).arm();
  fail_unless(released_within(buffer, 1000ms));
  fail_unless_equals_int(queue.held(), 0);
  fail_unless_equals_int(timeouts.load(), 0);
  gst_buffer_unref(buffer);
}
GST_END_TEST;

GST_START_TEST(test_timeout_releases_and_reports) {
  std::vector<uint64_t> reported;
  std::mutex lock;
  ReleaseQueue queue([&](GstBuffer *frame, uint64_t number) {
    std::lock_guard l(lock);
    fail_unless(GST_IS_BUFFER(frame));  // still held while reported
    reported.push_back(number);
  });
  auto gate = std::make_shared<SlotGate>();
  GstBuffer *a = gst_buffer_new();
  GstBuffer *b = gst_buffer_new();
  queue.hold(a, SlotRelease(gate, 1), 7, 30ms);
  queue.hold(b, SlotRelease(gate, 2), 8, 30ms);
  fail_unless(released_within(a, 1000ms));
  fail_unless(released_within(b, 1000ms));
  std::lock_guard l(lock);
  fail_unless_equals_int(reported.size(), 2);
  fail_unless_equals_uint64(reported[0], 7);
  fail_unless_equals_uint64(reported[1], 8);
  gst_buffer_unref(a);
  gst_buffer_unref(b);
}
GST_END_TEST;

// Frames go back in the order they came: one armed behind an unarmed one
// waits for it. release_all() and destruction let go of everything.
GST_START_TEST(test_release_all_and_destruction) {
  int timeouts = 0;
  GstBuffer *a = gst_buffer_new();
  GstBuffer *b = gst_buffer_new();
  {
    ReleaseQueue queue([&](GstBuffer *, uint64_t) { ++timeouts; });
    auto gate_a = std::make_shared<SlotGate>();
    auto gate_b = std::make_shared<SlotGate>();
    queue.hold(a, SlotRelease(gate_a, 1), 1, 10s);
    queue.hold(b, SlotRelease(gate_b, 1), 2, 10s);
    SlotRelease(gate_b, 1).arm();
    fail_if(released_within(b, 100ms), "b released ahead of a");
    queue.release_all();
    fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(a), 1);
    fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(b), 1);
    gst_buffer_ref(a);
    queue.hold(a, SlotRelease(gate_a, 2), 3, 10s);
    gst_buffer_unref(a);
  }  // destruction lets go of what is still held
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(a), 1);
  fail_unless_equals_int(timeouts, 0);
  gst_buffer_unref(a);
  gst_buffer_unref(b);
}
GST_END_TEST;

static Suite *release_queue_suite() {
  Suite *s = suite_create("release_queue");
  TCase *tc = tcase_create("queue");
  tcase_add_test(tc, test_held_until_armed);
  tcase_add_test(tc, test_timeout_releases_and_reports);
  tcase_add_test(tc, test_release_all_and_destruction);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(release_queue);
