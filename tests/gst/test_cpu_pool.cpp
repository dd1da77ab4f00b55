// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's helper threads, one set shared by every element of a
// process (efconvert/backends/cpu/cpu_pool): many callers at once, each of its own
// Pool with its own cap, run every job of every round exactly once and
// see every job's writes when run() returns; a helper joins a round where
// a CPU is free; the set is made and ended as Pools come and go while
// others run; and conversions on many threads at once give the bytes of
// one thread alone. No pipeline and only std::mutex synchronisation: the
// suite also runs under TSan (suite "tsan"), which reports any job whose
// writes are not ordered before its caller's reads.
// The standard headers come first: Check's fail() macro breaks <ios>.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/backends/cpu/cpu_converter.hpp"
#include "efconvert/backends/cpu/cpu_pool.hpp"
#include "frames.hpp"
#include "sentinel_frame.hpp"

using namespace ef::gst;

namespace {

// Some work a job does, long enough for a helper to wake and join.
uint32_t spin(uint32_t seed) {
  uint32_t x = seed | 1;
  for (int i = 0; i < 20000; ++i)
    x = x * 1664525u + 1013904223u;
  return x;
}

// `rounds` rounds of 1..17 jobs on `pool`: every job runs once, its plain
// (not atomic) writes visible to the caller when run() returns. Returns
// how many jobs ran on another thread than the caller's.
int run_rounds(cpu::Pool &pool, int rounds, const char *who) {
  int helped = 0;
  const std::thread::id caller = std::this_thread::get_id();
  for (int r = 0; r < rounds; ++r) {
    const size_t n = 1 + size_t(r % 17);
    std::vector<int> runs(n, 0);
    std::vector<uint32_t> results(n, 0);
    std::vector<std::thread::id> ran_on(n);
    auto job = [&](size_t i) {
      ++runs[i];
      results[i] = spin(uint32_t(r * 31 + int(i)));
      ran_on[i] = std::this_thread::get_id();
    };
    pool.run(n, job);
    for (size_t i = 0; i < n; ++i) {
      fail_unless(runs[i] == 1, "%s round %d: job %zu ran %d times", who, r, i, runs[i]);
      fail_unless(results[i] == spin(uint32_t(r * 31 + int(i))), "%s round %d: job %zu's result",
                  who, r, i);
      helped += ran_on[i] != caller;
    }
  }
  return helped;
}

unsigned cpus() {
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

// One caller alone: the helpers join its rounds (where there are CPUs for
// them), and every job runs once.
GST_START_TEST(test_one_caller_is_helped) {
  cpu::Pool pool(16);
  fail_unless_equals_int(int(pool.threads()), 16);
  const int helped = run_rounds(pool, 200, "alone");
  if (cpus() > 1)
    fail_unless(helped > 0, "no job ran on a helper in 200 rounds with %u CPUs", cpus());
  else
    std::printf("one CPU: no helpers to check\n");
}
GST_END_TEST;

// Callers of pools of different caps at once (more than there are CPUs):
// every job of every round runs exactly once.
GST_START_TEST(test_many_callers) {
  const unsigned caps[] = {1, 2, 3, 4, 7, 16};
  std::vector<std::thread> callers;
  for (unsigned cap : caps)
    callers.emplace_back([cap] {
      cpu::Pool pool(cap);
      run_rounds(pool, 150, ("cap " + std::to_string(cap)).c_str());
    });
  for (std::thread &t : callers)
    t.join();
}
GST_END_TEST;

// Pools made and let go over and over (the shared helpers end with the
// last one and start with the next) while another pool runs throughout.
GST_START_TEST(test_pools_come_and_go) {
  std::atomic<bool> done{false};
  std::thread steady([&] {
    cpu::Pool pool(4);
    while (!done.load())
      run_rounds(pool, 10, "steady");
  });
  for (int i = 0; i < 40; ++i) {
    cpu::Pool pool(1 + unsigned(i % 5));
    run_rounds(pool, 3, "short-lived");
  }
  done.store(true);
  steady.join();
  for (int i = 0; i < 20; ++i) {  // alone: the set ends and starts again
    cpu::Pool pool(3);
    run_rounds(pool, 2, "alone again");
  }
}
GST_END_TEST;

namespace {

// Waits until pred() holds, up to 10 s; false when it never did.
template <typename P>
bool eventually(P pred) {
  for (int i = 0; i < 10000 && !pred(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return pred();
}

// Callers, each on a Pool of its own, in a round of two jobs that block
// until release(): who runs what stays fixed while the test looks.
struct BlockedCallers {
  std::atomic<unsigned> inside{0};  // threads in a job, callers and helpers
  std::atomic<bool> go{false};
  std::vector<std::thread> callers;

  // One more caller, on a Pool capped at `cap` threads, with `jobs` jobs.
  void start(unsigned cap, size_t jobs = 2) {
    callers.emplace_back([this, cap, jobs] {
      auto job = [this](size_t) {
        ++inside;
        while (!go.load())
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
      };
      cpu::Pool pool(cap);
      pool.run(jobs, job);
    });
  }

  // Whether `n` threads came to be in jobs, within eventually()'s time.
  bool reach(unsigned n) {
    return eventually([&] { return inside.load() >= n; });
  }

  void release() {
    go.store(true);
    for (std::thread &t : callers)
      t.join();
    callers.clear();
  }

  ~BlockedCallers() { release(); }  // a joinable std::thread destroyed is std::terminate
};

}  // namespace

// With every CPU running jobs (as many callers as CPUs, and the helpers
// their rounds woke), a caller's round wakes no helper: there is no room
// for one, and each woken one would only take the lock and sleep again
// (what made 16 elements on 16 CPUs run their CPUs 45 % busy). Every job
// blocks until the end, so who runs what is fixed: each round has two jobs
// and a cap of two threads, so a caller and at most one helper.
GST_START_TEST(test_no_helper_woken_when_cpus_are_busy) {
  const unsigned n = cpus();
  if (n < 2) {
    std::printf("one CPU: no helpers, nothing to check\n");
    return;
  }
  cpu::Pool probe(2);  // keeps the process's helpers between the callers
  BlockedCallers blocked;
  // Callers one after another until the jobs running fill the CPUs.
  while (blocked.inside.load() < n) {
    const unsigned before = blocked.inside.load();
    const uint64_t woken = probe.helper_wakeups();
    blocked.start(2);
    // The caller is in its job; a helper it woke joins the other one.
    const unsigned expect = before + 1 + unsigned(probe.helper_wakeups() > woken);
    fail_unless(blocked.reach(before + 1), "a caller never started its job");
    fail_unless(eventually([&] {
                  return blocked.inside.load() >=
                         before + 1 + unsigned(probe.helper_wakeups() > woken);
                }),
                "a woken helper never joined a round with a job left (%u inside, %u expected)",
                blocked.inside.load(), expect);
  }
  const uint64_t woken = probe.helper_wakeups();
  const unsigned before = blocked.inside.load();
  blocked.start(2);
  fail_unless(blocked.reach(before + 1), "the last caller never ran");
  const uint64_t extra = probe.helper_wakeups() - woken;
  blocked.release();
  fail_unless(extra == 0,
              "a round woke %" G_GUINT64_FORMAT
              " helpers with all %u CPUs running jobs (%u inside)",
              extra, n, before);
}
GST_END_TEST;

// With callers (each converting a frame of its own, helped or not) in run()
// on more than half the CPUs, a round takes no helper even where CPUs are
// free: a helper there is soon preempted by a caller coming back, and its
// round's caller waits for it (16 elements on 16 CPUs ran 57 % busy). The
// pool plans for 8 CPUs (EF_CPU_POOL_CPUS) whatever this machine has; every
// job blocks until the end, so who runs what is fixed.
GST_START_TEST(test_no_helper_with_callers_on_half_the_cpus) {
  g_setenv("EF_CPU_POOL_CPUS", "8", TRUE);
  cpu::Pool probe(8);  // the process's helpers, planned for 8 CPUs
  BlockedCallers blocked;
  // Three callers alone (n-threads=1: no helper, one job at a time).
  for (int i = 0; i < 3; ++i)
    blocked.start(1);
  fail_unless(blocked.reach(3) && blocked.inside.load() == 3, "%u of 3 callers in a job",
              blocked.inside.load());
  // A fourth that may be helped: 4 callers on 8 CPUs, half, so a helper
  // joins it.
  uint64_t woken = probe.helper_wakeups();
  blocked.start(8);
  const bool helped = blocked.reach(5);
  const uint64_t first = probe.helper_wakeups() - woken;
  // A fifth: 5 callers on 8 CPUs, more than half: none, though 3 are free.
  woken = probe.helper_wakeups();
  blocked.start(8);
  const bool ran = blocked.reach(6);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for a late join
  const unsigned settled = blocked.inside.load();
  const uint64_t second = probe.helper_wakeups() - woken;
  blocked.release();
  g_unsetenv("EF_CPU_POOL_CPUS");
  fail_unless(helped && first == 1,
              "with callers on half the CPUs a round was not helped (%" G_GUINT64_FORMAT
              " woken, %u inside)",
              first, blocked.inside.load());
  fail_unless(ran, "the fifth caller never ran");
  fail_unless(second == 0 && settled == 6,
              "with callers on more than half the CPUs a round woke %" G_GUINT64_FORMAT
              " helpers (%u threads in jobs, 6 without a helper)",
              second, settled);
}
GST_END_TEST;

// A round takes its caller's share of the CPUs no caller runs on, not all
// that are free: with one caller converting alone (n-threads=1) on 8 CPUs,
// a second caller's round of 8 jobs takes (8 - 2) / 2 = 3 helpers, not 7
// (the first of several rounds had taken every free CPU, the others none,
// and each caller waited at the end of its round for the last of its many
// helpers: 8 elements on 16 CPUs ran 48 % busy). Every job blocks until
// the end, so who runs what is fixed.
GST_START_TEST(test_helpers_shared_among_callers) {
  g_setenv("EF_CPU_POOL_CPUS", "8", TRUE);
  cpu::Pool probe(8);
  BlockedCallers blocked;
  blocked.start(1);
  fail_unless(blocked.reach(1), "the caller alone never ran");
  const uint64_t woken = probe.helper_wakeups();
  blocked.start(8, 8);
  const bool helped = blocked.reach(5);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for a late join
  const unsigned settled = blocked.inside.load();
  const uint64_t wakeups = probe.helper_wakeups() - woken;
  blocked.release();
  g_unsetenv("EF_CPU_POOL_CPUS");
  fail_unless(helped && settled == 5 && wakeups == 3,
              "a round of 8 jobs beside one other caller on 8 CPUs: %u threads in jobs (5: two "
              "callers and 3 helpers), %" G_GUINT64_FORMAT " helpers woken (3)",
              settled, wakeups);
}
GST_END_TEST;

namespace {

using Frame = ef::test::SentinelFrame;

struct Case {
  GstVideoFormat in;
  int in_w, in_h;
  GstVideoFormat out;
  int out_w, out_h;
};

// 1080p NV12 to 640x640 RGB letterboxed (the box kernels in one round of
// bands), and an odd I420 reduction to planar RGBP (banded steps, libyuv's
// plane scaler a plane a job).
constexpr Case kCases[] = {
    {GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGB, 640, 640},
    {GST_VIDEO_FORMAT_I420, 1281, 721, GST_VIDEO_FORMAT_RGBP, 417, 415},
};

ConvertParams params_for(const Case &c, const Frame &src) {
  auto planned =
      plan_conversion(c.in_w, c.in_h, {}, c.out_w, c.out_h, true, GST_VIDEO_ORIENTATION_IDENTITY);
  fail_unless(planned.ok());
  ConvertParams p = *planned;
  p.fill = {30, 200, 90, 160};
  p.matrix = src.info.colorimetry.matrix;
  p.range = src.info.colorimetry.range;
  return p;
}

}  // namespace

// Threads converting at once, each on a pool of its own cap (so with its
// own band count), give byte for byte what one thread alone gives. The
// frames are made before the threads start: they only convert.
GST_START_TEST(test_conversions_at_once) {
  constexpr int kThreads = 4, kFrames = 6;
  for (const Case &c : kCases) {
    Frame src(c.in, c.in_w, c.in_h, 0);
    ef::test::fill_frame(&src.frame, 11);
    const ConvertParams p = params_for(c, src);
    Frame want(c.out, c.out_w, c.out_h, 0x5a);
    {
      cpu::Pool alone(1);
      fail_unless(cpu_convert(src.frame, want.frame, p, alone).ok());
    }
    std::vector<std::unique_ptr<Frame>> got;
    for (int i = 0; i < kThreads * kFrames; ++i)
      got.push_back(std::make_unique<Frame>(c.out, c.out_w, c.out_h, 0x5a));
    std::vector<std::thread> threads;
    std::atomic<int> failed{0};
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        cpu::Pool pool(unsigned(t + 1));
        for (int f = 0; f < kFrames; ++f)
          if (!cpu_convert(src.frame, got[size_t(t * kFrames + f)]->frame, p, pool).ok())
            failed++;
      });
    for (std::thread &t : threads)
      t.join();
    fail_unless_equals_int(failed.load(), 0);
    for (size_t i = 0; i < got.size(); ++i)
      fail_unless(std::memcmp(got[i]->bytes(), want.bytes(), want.info.size) == 0,
                  "%s -> %s: frame %zu of a pool of %zu threads differs from one thread's",
                  gst_video_format_to_string(c.in), gst_video_format_to_string(c.out), i % kFrames,
                  i / kFrames + 1);
  }
}
GST_END_TEST;

static Suite *cpu_pool_suite() {
  Suite *s = suite_create("cpu_pool");
  TCase *tc = tcase_create("general");
  tcase_set_timeout(tc, 240);  // TSan runs these several times slower
  tcase_add_test(tc, test_one_caller_is_helped);
  tcase_add_test(tc, test_many_callers);
  tcase_add_test(tc, test_pools_come_and_go);
  tcase_add_test(tc, test_no_helper_woken_when_cpus_are_busy);
  tcase_add_test(tc, test_no_helper_with_callers_on_half_the_cpus);
  tcase_add_test(tc, test_helpers_shared_among_callers);
  tcase_add_test(tc, test_conversions_at_once);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(cpu_pool);
