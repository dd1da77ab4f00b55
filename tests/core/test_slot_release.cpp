// SPDX-License-Identifier: LGPL-2.1-or-later
// Slot-release gates: arm/wait, timeout text, no spinning, and many threads.
#include <time.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "check_main.h"
#include "ef/slot_release.hpp"

using namespace ef;
using namespace std::chrono_literals;

namespace {

double process_cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

}  // namespace

START_TEST(test_arm_then_wait) {
  SlotRing ring(2);
  auto use = ring.acquire(0, 10ms);  // a fresh slot is free
  ck_assert(use.ok());
  ck_assert_uint_eq(use->value(), 1);
  ck_assert(!ring.wait_released(0, 1ms).ok());  // not armed yet
  use->arm();
  ck_assert(ring.wait_released(0, 1ms).ok());
  ck_assert(ring.acquire(0, 1ms).ok());
  // Slot 1 is independent of slot 0.
  ck_assert(ring.acquire(1, 1ms).ok());
}
END_TEST

START_TEST(test_wake_from_other_thread) {
  SlotRing ring(1);
  auto use = ring.acquire(0, 1ms);
  // Timed from before the consumer starts: its sleep can only begin later,
  // however long a loaded machine takes to schedule it.
  auto start = std::chrono::steady_clock::now();
  std::thread consumer([r = *use] {
    std::this_thread::sleep_for(20ms);
    r.arm();
  });
  auto next = ring.acquire(0, 5s);
  auto waited = std::chrono::steady_clock::now() - start;
  consumer.join();
  ck_assert(next.ok());
  ck_assert(waited >= 15ms);
  ck_assert(waited < 4s);
}
END_TEST

START_TEST(test_arm_twice_harmless) {
  SlotRing ring(1);
  auto first = ring.acquire(0, 1ms);
  first->arm();
  first->arm();
  auto second = ring.acquire(0, 1ms);
  ck_assert(second.ok());
  // Arming the old use again must not release the new one.
  first->arm();
  ck_assert(!ring.wait_released(0, 1ms).ok());
  second->arm();
  ck_assert(ring.wait_released(0, 1ms).ok());
  // Values never go back.
  SlotGate gate(10);
  gate.store(3);
  ck_assert_uint_eq(gate.load(), 10);
}
END_TEST

START_TEST(test_timeout_error_names_slot_and_values) {
  SlotRing ring(4);
  for (int i = 0; i < 3; ++i) {
    auto use = ring.acquire(3, 1ms);
    ck_assert(use.ok());
    if (i < 2)
      use->arm();
  }
  auto r = ring.acquire(3, 30ms);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, ETIMEDOUT);
  const char *msg = r.error().message.c_str();
  ck_assert_msg(strstr(msg, "slot 3") != nullptr, "%s", msg);
  ck_assert_msg(strstr(msg, "expected 3") != nullptr, "%s", msg);
  ck_assert_msg(strstr(msg, "observed 2") != nullptr, "%s", msg);
  ck_assert_msg(strstr(msg, "30 ms") != nullptr, "%s", msg);
}
END_TEST

START_TEST(test_slot_out_of_range) {
  SlotRing ring(2);
  auto r = ring.acquire(2, 1ms);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EINVAL);
}
END_TEST

// A blocked producer must sleep, not spin: during a 200 ms wait the whole
// process may use at most 5 ms of CPU.
START_TEST(test_wait_does_not_spin) {
  SlotRing ring(1);
  auto use = ring.acquire(0, 1ms);
  ck_assert(use.ok());
  double before = process_cpu_ms();
  auto start = std::chrono::steady_clock::now();
  auto r = ring.acquire(0, 200ms);
  auto waited = std::chrono::steady_clock::now() - start;
  double used = process_cpu_ms() - before;
  ck_assert(!r.ok());
  ck_assert(waited >= 195ms);
  ck_assert_msg(used < 5.0, "waiting burned %.2f ms of CPU", used);
}
END_TEST

// Producers each own a ring; consumers arm from other threads, in any order.
// Each frame's content must be consumed before its slot is rewritten.
START_TEST(test_many_producers_and_consumers) {
  constexpr int kProducers = 3, kSlots = 3, kFrames = 300;
  std::atomic<int> violations{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p)
    threads.emplace_back([&] {
      SlotRing ring(kSlots);
      std::atomic<int> content[kSlots];
      for (auto &c : content)
        c.store(-1);
      std::vector<std::thread> consumers;
      for (int f = 0; f < kFrames; ++f) {
        uint32_t slot = static_cast<uint32_t>(f % kSlots);
        auto use = ring.acquire(slot, 5s);
        if (!use.ok()) {
          ++violations;
          break;
        }
        content[slot].store(f);
        consumers.emplace_back([&content, &violations, slot, f, r = *use] {
          std::this_thread::yield();
          if (content[slot].load() != f)  // rewritten while in use
            ++violations;
          r.arm();
        });
        if (consumers.size() > 8) {
          consumers.front().join();
          consumers.erase(consumers.begin());
        }
      }
      for (auto &c : consumers)
        c.join();
    });
  for (auto &t : threads)
    t.join();
  ck_assert_int_eq(violations.load(), 0);
}
END_TEST

// "Forever" must mean forever, not an overflowed deadline that returns at once.
START_TEST(test_wait_forever_waits) {
  SlotGate gate;
  auto start = std::chrono::steady_clock::now();
  std::thread consumer([&] {
    std::this_thread::sleep_for(50ms);
    gate.store(1);
  });
  uint64_t seen = gate.wait_for(1, std::chrono::nanoseconds::max());
  auto waited = std::chrono::steady_clock::now() - start;
  consumer.join();
  ck_assert_uint_eq(seen, 1);
  ck_assert(waited >= 40ms);
}
END_TEST

// Every deadline the clock cannot hold waits for the arm; a negative timeout
// is 0, and its message says so rather than a negative number.
START_TEST(test_long_and_negative_timeouts) {
  for (auto timeout : {std::chrono::nanoseconds::max() - 1ns,
                       std::chrono::nanoseconds(std::chrono::hours(24 * 365 * 200))}) {
    SlotGate gate;
    auto start = std::chrono::steady_clock::now();
    std::thread consumer([&] {
      std::this_thread::sleep_for(20ms);
      gate.store(1);
    });
    auto r = gate.wait(1, timeout);
    auto waited = std::chrono::steady_clock::now() - start;
    consumer.join();
    ck_assert(r.ok());
    ck_assert(waited >= 20ms);
  }
  SlotGate gate;
  auto r = gate.wait(1, std::chrono::nanoseconds::min());
  ck_assert_int_eq(r.error().code, ETIMEDOUT);
  ck_assert_msg(r.error().message.find("within 0 ms") != std::string::npos, "%s",
                r.error().message.c_str());
}
END_TEST

static Suite *gate_suite() {
  Suite *s = suite_create("slot_release");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_arm_then_wait);
  tcase_add_test(tc, test_wake_from_other_thread);
  tcase_add_test(tc, test_arm_twice_harmless);
  tcase_add_test(tc, test_timeout_error_names_slot_and_values);
  tcase_add_test(tc, test_slot_out_of_range);
  tcase_add_test(tc, test_wait_does_not_spin);
  tcase_add_test(tc, test_many_producers_and_consumers);
  tcase_add_test(tc, test_wait_forever_waits);
  tcase_add_test(tc, test_long_and_negative_timeouts);
  suite_add_tcase(s, tc);
  return s;
}

int main() {
  return ef::test::run_suite(gate_suite());
}
