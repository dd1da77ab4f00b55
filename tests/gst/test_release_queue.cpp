// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge's ReleaseQueue below the element: a held frame goes back to its
// producer when its gate is armed, or after its timeout with the handler
// called, and release_all() lets go of everything at once.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
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

// wait_for_room() blocks a producer at the bound until the oldest frame goes
// back (armed, or timed out), or until release_all().
GST_START_TEST(test_room_at_the_bound) {
  std::atomic<int> timeouts{0};
  ReleaseQueue queue([&](GstBuffer *, uint64_t) { ++timeouts; });
  auto gate = std::make_shared<SlotGate>();
  std::vector<GstBuffer *> frames;
  for (uint64_t i = 0; i < 3; ++i) {
    fail_if(queue.wait_for_room(3), "waited below the bound");
    frames.push_back(gst_buffer_new());
    queue.hold(frames.back(), SlotRelease(gate, i + 1), i, 10s);
  }
  fail_if(queue.wait_for_room(0), "0 is no bound");
  std::atomic<bool> room{false}, waited{false};
  std::thread producer([&] {
    waited = queue.wait_for_room(3);
    room = true;
  });
  std::this_thread::sleep_for(100ms);
  fail_if(room.load(), "room at the bound with nothing released");
  SlotRelease(gate, 1).arm();  // the oldest goes back
  producer.join();
  fail_unless(waited.load(), "no wait at the bound");
  fail_unless(released_within(frames[0], 1000ms));
  fail_unless_equals_int(queue.held(), 2);
  queue.hold(frames[0], SlotRelease(gate, 4), 3, 10s);
  room = false;
  std::thread flushed([&] {
    queue.wait_for_room(3);
    room = true;
  });
  std::this_thread::sleep_for(50ms);
  fail_if(room.load());
  queue.release_all();
  flushed.join();
  fail_unless_equals_int(timeouts.load(), 0);
  for (GstBuffer *b : frames)
    gst_buffer_unref(b);
}
GST_END_TEST;

// Back to back at the bound, nothing ever armed: never more than the bound
// held, and each frame goes back at its timeout, not behind a backlog.
GST_START_TEST(test_back_to_back_timeouts) {
  constexpr size_t kLimit = 8;
  constexpr size_t kFrames = 1000;
  constexpr auto kTimeout = 5ms;
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> held_at(kFrames);
  std::vector<double> held_ms(kFrames, -1);
  std::mutex lock;
  ReleaseQueue queue([&](GstBuffer *, uint64_t number) {
    std::lock_guard l(lock);
    held_ms[number] =
        std::chrono::duration<double, std::milli>(Clock::now() - held_at[number]).count();
  });
  auto gate = std::make_shared<SlotGate>();
  size_t most = 0;
  for (size_t n = 0; n < kFrames; ++n) {
    queue.wait_for_room(kLimit);
    GstBuffer *b = gst_buffer_new();
    {
      std::lock_guard l(lock);
      held_at[n] = Clock::now();
    }
    queue.hold(b, SlotRelease(gate, n + 1), n, kTimeout);
    gst_buffer_unref(b);
    most = std::max(most, queue.held());
  }
  fail_unless(most <= kLimit, "%zu held, bound %zu", most, kLimit);
  const auto end = Clock::now() + 2s;
  while (queue.held() > 0 && Clock::now() < end)
    std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(10ms);  // the last handler call
  std::lock_guard l(lock);
  std::vector<double> sorted = held_ms;
  std::sort(sorted.begin(), sorted.end());
  fail_unless(sorted.front() >= 0, "a frame was never released");
  fail_unless(sorted[kFrames * 9 / 10] < 5 + 20 && sorted.back() < 5 + 100,
              "holds: 90%% within %.1f ms, longest %.1f ms, timeout 5 ms", sorted[kFrames * 9 / 10],
              sorted.back());
}
GST_END_TEST;

static Suite *release_queue_suite() {
  Suite *s = suite_create("release_queue");
  TCase *tc = tcase_create("queue");
  tcase_add_test(tc, test_held_until_armed);
  tcase_add_test(tc, test_timeout_releases_and_reports);
  tcase_add_test(tc, test_release_all_and_destruction);
  tcase_add_test(tc, test_room_at_the_bound);
  tcase_add_test(tc, test_back_to_back_timeouts);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(release_queue);
