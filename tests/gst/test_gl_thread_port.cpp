// SPDX-License-Identifier: LGPL-2.1-or-later
// GlThreadPort, the GL backend's hand-over to the GL thread: every call
// runs there with the context current, exactly once, before run() returns,
// from several callers at once; a call made on the GL thread runs at once;
// a port dropped and made again keeps working; and (in builds without a
// sanitizer, which brings its own malloc) a call allocates nothing on the
// caller's thread where gst_gl_context_thread_add allocates every time.
#include <gst/gl/gl.h>

#include <atomic>
#include <thread>
#include <vector>

#include "common/gl_thread_port.hpp"
// After the port: Check's `fail` macro would rename std::ios::fail in headers after it.
#include "check_gl_main.hpp"
#include "gl_test_context.hpp"
#ifdef EF_COUNT_ALLOCATIONS
#include "alloc_count.hpp"
#endif

namespace {

using ef::gst::GlThreadPort;

using GlContext = ef::test::TestGlContext;

struct Calls {
  GstGLContext *context;
  std::atomic<int> ran{0}, elsewhere{0};
  GlThreadPort *port = nullptr;  // for a call from the GL thread
  std::atomic<int> nested{0};
};

void count(GstGLContext *context, gpointer data) {
  auto *c = static_cast<Calls *>(data);
  if (context != c->context || gst_gl_context_get_current() != c->context)
    c->elsewhere++;
  c->ran++;
}

void count_nested(GstGLContext *context, gpointer data) {
  auto *c = static_cast<Calls *>(data);
  // On the GL thread already: runs at once (waiting for the thread would
  // never return).
  c->port->run([](GstGLContext *, gpointer d) { static_cast<Calls *>(d)->nested++; }, data);
  count(context, data);
}

GST_START_TEST(test_runs_on_the_gl_thread) {
  GlContext gl;
  Calls calls{gl.context.get()};
  {
    GlThreadPort port(gl.context.get());
    constexpr int kThreads = 4, kEach = 500;
    std::vector<std::thread> callers;
    for (int t = 0; t < kThreads; ++t)
      callers.emplace_back([&] {
        for (int i = 0; i < kEach; ++i) {
          const int before = calls.ran.load();
          port.run(count, &calls);
          // Returned only once this call ran (others may have run too).
          fail_unless(calls.ran.load() > before);
        }
      });
    for (auto &c : callers)
      c.join();
    fail_unless_equals_int(calls.ran.load(), kThreads * kEach);
    fail_unless_equals_int(calls.elsewhere.load(), 0);
    calls.port = &port;
    port.run(count_nested, &calls);
    fail_unless_equals_int(calls.nested.load(), 1);
  }
  // A port made again on the same context, after one was dropped.
  GlThreadPort again(gl.context.get());
  again.run(count, &calls);
  fail_unless_equals_int(calls.ran.load(), 4 * 500 + 2);
  fail_unless_equals_int(calls.elsewhere.load(), 0);
}
GST_END_TEST;

// run_counted: every hand-over counted once, with its time on the GL
// thread, for whichever backend hands over (efconvert's GL and CUDA
// backends' gl-handovers and gl-thread-ns).
GST_START_TEST(test_counts_hand_overs) {
  GlContext gl;
  GlThreadPort port(gl.context.get());
  int ran = 0;
  for (int i = 0; i < 20; ++i)
    port.run_counted([&](GstGLContext *context) {
      fail_unless(gst_gl_context_get_current() == context);
      g_usleep(100);
      ran++;
    });
  fail_unless_equals_int(ran, 20);
  fail_unless_equals_uint64(port.handovers(), 20);
  fail_unless(port.thread_ns() >= 20 * 100 * 1000, "%" G_GUINT64_FORMAT " ns", port.thread_ns());
  Calls calls{gl.context.get()};
  port.run(count, &calls);  // uncounted
  fail_unless_equals_uint64(port.handovers(), 20);
}
GST_END_TEST;

#ifdef EF_COUNT_ALLOCATIONS
GST_START_TEST(test_allocates_nothing) {
  GlContext gl;
  Calls calls{gl.context.get()};
  GlThreadPort port(gl.context.get());
  for (int i = 0; i < 10; ++i)  // first calls may set up GLib's state
    port.run(count, &calls);
  uint64_t before = ef::bench::thread_allocations();
  for (int i = 0; i < 100; ++i)
    port.run(count, &calls);
  fail_unless_equals_uint64(ef::bench::thread_allocations() - before, 0);
  before = ef::bench::thread_allocations();
  for (int i = 0; i < 100; ++i)
    port.run_counted([&](GstGLContext *context) { count(context, &calls); });
  fail_unless_equals_uint64(ef::bench::thread_allocations() - before, 0);
  // The counter sees what gst_gl_context_thread_add makes.
  before = ef::bench::thread_allocations();
  for (int i = 0; i < 100; ++i)
    gst_gl_context_thread_add(gl.context.get(), count, &calls);
  fail_unless(ef::bench::thread_allocations() - before >= 100,
              "gst_gl_context_thread_add made %" G_GUINT64_FORMAT " allocations in 100 calls",
              ef::bench::thread_allocations() - before);
}
GST_END_TEST;
#endif

Suite *gl_thread_port_suite() {
  Suite *s = suite_create("gl_thread_port");
  TCase *tc = tcase_create("general");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_runs_on_the_gl_thread);
  tcase_add_test(tc, test_counts_hand_overs);
#ifdef EF_COUNT_ALLOCATIONS
  tcase_add_test(tc, test_allocates_nothing);
#endif
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main(int argc, char **argv) {
  return ef::test::run_gl_suite(argc, argv, gl_thread_port_suite, ef::test::Needs::Gl);
}
