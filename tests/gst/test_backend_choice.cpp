// SPDX-License-Identifier: LGPL-2.1-or-later
// backend=auto's decision from the candidates' cost models (their registry
// entries'), on a description of the machine: where the frames live, the
// renderer, what the GPU imports and the cores.
#include <glib/gstdio.h>

#include <string>
#include <vector>

#include "efconvert/backends/backend_choice.hpp"
#include "efconvert/backends/backend_registry.hpp"
#ifdef EF_HAVE_GSTGL
#include "efconvert/backends/cpu/cpu_backend.hpp"
#include "efconvert/backends/gl/gl_backend.hpp"
#include "efconvert/backends/gl/gl_cost.hpp"
#include "efconvert/backends/gl/gpu_device.hpp"
#endif

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

using namespace ef::gst;

namespace {

bool says(const Choice &c, const char *text) {
  return c.reason.find(text) != std::string::npos;
}

bool said(const std::string &why, const char *text) {
  return why.find(text) != std::string::npos;
}

bool picks(const Choice &c, size_t i) {
  return c.timed.size() == 1 && c.timed[0] == i;
}

bool times_all(const Choice &c, size_t n) {
  return c.timed.size() == n;
}

#ifdef EF_HAVE_GSTGL
constexpr size_t kCpu = 0, kGl = 1;

Facts hardware() {
  Facts gl;
  gl.gpu = GpuKind::Hardware;
  gl.renderer = "NVIDIA H200/PCIe/SSE2";
  return gl;
}

// The CPU backend's model on `cores` against the GL backend's on `gl`.
std::vector<Candidate> cpu_and_gl(const Machine &m, const Facts &gl, unsigned cores) {
  Facts cpu;
  cpu.cores = cores;
  return {{"cpu", backend_named("cpu")->cost(m, cpu)}, {"gl", gl_cost(m, gl)}};
}

Choice choose(FrameMemory in, FrameMemory out, const Facts &gl, unsigned cores) {
  const Machine m{in, out};
  const auto candidates = cpu_and_gl(m, gl, cores);
  return choose_backend(candidates);
}
#endif

}  // namespace

// The rule itself, whatever the backends: two classes below every other
// runs, within one of the cheapest are timed, unusable ones never run.
GST_START_TEST(test_classes_decide) {
  const std::vector<Candidate> clear = {{"a", {3, "a slow"}}, {"b", {1, "b fast"}}};
  Choice c = choose_backend(clear);
  fail_unless(picks(c, 1) && says(c, "a slow") && says(c, "b fast"), "%s", c.reason.c_str());
  const std::vector<Candidate> close = {{"a", {2, "a"}}, {"b", {1, "b"}}, {"c", {4, "c"}}};
  c = choose_backend(close);
  fail_unless(times_all(c, 2) && c.timed[0] == 0 && c.timed[1] == 1 && says(c, "timing a and b"),
              "%s", c.reason.c_str());
  const std::vector<Candidate> one_left = {{"a", {kUnusable, "no a"}}, {"b", {2, "b"}}};
  c = choose_backend(one_left);
  fail_unless(picks(c, 1) && says(c, "no a"), "%s", c.reason.c_str());
  const std::vector<Candidate> three = {{"a", {2, "a"}}, {"b", {2, "b"}}, {"c", {3, "c"}}};
  c = choose_backend(three);
  fail_unless(times_all(c, 3) && says(c, "timing a, b and c"), "%s", c.reason.c_str());
  c = settle_trial(three, c.timed, {50, 20, 30}, 4, 4);
  fail_unless(picks(c, 1) && says(c, "a 50 us, b 20 us, c 30 us"), "%s", c.reason.c_str());
}
GST_END_TEST;

#ifdef EF_HAVE_GSTGL
GST_START_TEST(test_gl_memory_takes_gl) {
  for (unsigned cores : {1u, 16u}) {
    // A download against a read-back: measured, not assumed.
    const Choice c = choose(FrameMemory::Gl, FrameMemory::System, hardware(), cores);
    fail_unless(times_all(c, 2) && says(c, "input is GL memory"), "%s", c.reason.c_str());
  }
  // Only GL makes GL memory, in software too: the tables leave no other.
  GstVideoInfo nv12, rgba;
  gst_video_info_set_format(&nv12, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_video_info_set_format(&rgba, GST_VIDEO_FORMAT_RGBA, 32, 32);
  for (FrameMemory in : {FrameMemory::Gl, FrameMemory::System}) {
    const Conversion c = conversion_of(nv12, in, OutputSpec(rgba), FrameMemory::Gl);
    fail_if(makes(cpu_table(), c), "%s", describe(c).c_str());
    fail_unless(makes(gl_table(), c), "%s", describe(c).c_str());
  }
}
GST_END_TEST;

// A software rasterizer's GL memory is read back by a copy in memory: the
// CPU backend converts GL memory in to system memory out.
GST_START_TEST(test_gl_input_in_software_takes_cpu) {
  Facts gl = hardware();
  gl.gpu = GpuKind::Software;
  gl.renderer = "llvmpipe (LLVM 15.0.7, 256 bits)";
  const Choice c = choose(FrameMemory::Gl, FrameMemory::System, gl, 2);
  fail_unless(picks(c, kCpu) && says(c, "software"), "%s", c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_software_or_no_gl_takes_cpu) {
  Facts gl = hardware();
  gl.gpu = GpuKind::Software;
  gl.renderer = "llvmpipe (LLVM 15.0.7, 256 bits)";
  gl.src = gl.dst = Import::Yes;
  for (unsigned cores : {1u, 2u}) {
    const Choice c = choose(FrameMemory::DmaBuf, FrameMemory::System, gl, cores);
    fail_unless(picks(c, kCpu) && says(c, "software") && says(c, "llvmpipe"), "%s",
                c.reason.c_str());
  }
  gl.gpu = GpuKind::None;
  gl.renderer = "no GL context could be made";
  const Choice c = choose(FrameMemory::DmaBuf, FrameMemory::System, gl, 2);
  fail_unless(picks(c, kCpu) && says(c, "no GL"), "%s", c.reason.c_str());
}
GST_END_TEST;

// System memory both ways on hardware GL: not known before a frame, so
// timed; once the GL frame showed an upload and a readback (NVIDIA refuses
// memfds: 1186 us a frame against the CPU's 288 us on 16 cores, 465 us on
// one), the CPU at any core count.
GST_START_TEST(test_copies_both_ways_take_cpu) {
  for (unsigned cores : {1u, 2u, 16u}) {
    Facts gl = hardware();
    Choice c = choose(FrameMemory::System, FrameMemory::System, gl, cores);
    fail_unless(times_all(c, 2), "%u cores, imports unknown: %s", cores, c.reason.c_str());
    gl.src = gl.dst = Import::No;
    c = choose(FrameMemory::System, FrameMemory::System, gl, cores);
    fail_unless(picks(c, kCpu) && says(c, "upload and a readback"), "%u cores: %s", cores,
                c.reason.c_str());
  }
}
GST_END_TEST;

// One copy, or none on many cores: only timing tells; no copy and one core: GL.
GST_START_TEST(test_unclear_cases_are_timed) {
  for (auto [src, dst] : {std::pair{Import::Yes, Import::No}, std::pair{Import::No, Import::Yes},
                          std::pair{Import::Yes, Import::Yes}}) {
    Facts gl = hardware();
    gl.src = src;
    gl.dst = dst;
    const Choice c = choose(FrameMemory::DmaBuf, FrameMemory::DmaBuf, gl, 16);
    fail_unless(times_all(c, 2) && says(c, "16 cores"), "%s", c.reason.c_str());
    // One copy on the only core: still timed.
    if (src != dst)
      fail_unless(times_all(choose(FrameMemory::DmaBuf, FrameMemory::System, gl, 1), 2));
  }
  Facts gl = hardware();
  gl.src = gl.dst = Import::Yes;
  const Choice c = choose(FrameMemory::DmaBuf, FrameMemory::System, gl, 1);
  fail_unless(picks(c, kGl) && says(c, "only core"), "%s", c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_trial_keeps_the_faster) {
  Facts gl = hardware();
  gl.src = Import::Yes;
  gl.dst = Import::No;
  const auto candidates = cpu_and_gl({FrameMemory::System, FrameMemory::System}, gl, 16);
  Choice c = settle_trial(candidates, {kCpu, kGl}, {288, 1186}, 4, 4);
  fail_unless(picks(c, kCpu), "%s", c.reason.c_str());
  fail_unless(says(c, "cpu 288 us, gl 1186 us") && says(c, "destination read back"), "%s",
              c.reason.c_str());
  c = settle_trial(candidates, {kCpu, kGl}, {900, 120}, 4, 4);
  fail_unless(picks(c, kGl) && says(c, "timed the first frame 4 times each"), "%s",
              c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_renderer_kinds) {
  for (const char *soft :
       {"llvmpipe (LLVM 15.0.7, 256 bits)", "softpipe", "Mesa swrast", "Software Rasterizer"})
    fail_unless(gl_kind_of(soft, nullptr) == GpuKind::Software, "%s", soft);
  fail_unless(gl_kind_of("NVIDIA H200/PCIe/SSE2", nullptr) == GpuKind::Hardware);
  fail_unless(gl_kind_of("Mesa Intel(R) UHD Graphics 620", "") == GpuKind::Hardware);
  fail_unless(gl_kind_of("llvmpipe", "hardware") == GpuKind::Hardware);
  fail_unless(gl_kind_of("NVIDIA H200", "software") == GpuKind::Software);
  fail_unless(gl_kind_of("llvmpipe", "bogus") == GpuKind::Software);
}
GST_END_TEST;

// A GPU shows as a device node, known without opening GL: a DRM render
// node or NVIDIA's numbered one (not its control nodes); the renderer kind
// forced decides instead. A folder made here stands for /dev.
GST_START_TEST(test_gpu_device_nodes) {
  gchar *dev = g_dir_make_tmp("ef-dev-XXXXXX", nullptr);
  fail_unless(dev != nullptr);
  const std::string root = dev;
  auto touch = [&](const std::string &name) {
    fail_unless(g_file_set_contents((root + "/" + name).c_str(), "", 0, nullptr));
  };
  std::string why;
  fail_unless(gpu_device_node(root).empty());
  fail_if(gl_may_be_hardware(nullptr, why, root));
  fail_unless(said(why, "no GPU device"), "%s", why.c_str());
  touch("nvidiactl");
  touch("nvidia-uvm");
  fail_unless(gpu_device_node(root).empty(), "NVIDIA's control nodes are no GPU");
  fail_unless(g_mkdir((root + "/dri").c_str(), 0700) == 0);
  touch("dri/card0");
  fail_unless(gpu_device_node(root).empty(), "a card node alone (KMS only) renders nothing");
  touch("nvidia0");
  fail_unless(gpu_device_node(root) == root + "/nvidia0", "%s", gpu_device_node(root).c_str());
  touch("dri/renderD128");
  fail_unless(gpu_device_node(root) == root + "/dri/renderD128", "%s", gpu_device_node(root).c_str());
  fail_unless(gl_may_be_hardware(nullptr, why, root) && said(why, "renderD128"));
  fail_unless(gl_may_be_hardware("bogus", why, root));
  fail_if(gl_may_be_hardware("software", why, root));
  fail_unless(said(why, "EF_GL_RENDERER_KIND=software"), "%s", why.c_str());
  for (const char *name : {"dri/renderD128", "dri/card0", "nvidia0", "nvidiactl", "nvidia-uvm"})
    g_remove((root + "/" + name).c_str());
  g_rmdir((root + "/dri").c_str());
  fail_unless(gl_may_be_hardware("hardware", why, root), "forced, with no device");
  g_rmdir(dev);
  g_free(dev);
}
GST_END_TEST;
#endif

static Suite *choice_suite() {
  Suite *s = suite_create("backend_choice");
  TCase *tc = tcase_create("decision");
  tcase_add_test(tc, test_classes_decide);
#ifdef EF_HAVE_GSTGL
  tcase_add_test(tc, test_gl_memory_takes_gl);
  tcase_add_test(tc, test_gl_input_in_software_takes_cpu);
  tcase_add_test(tc, test_software_or_no_gl_takes_cpu);
  tcase_add_test(tc, test_copies_both_ways_take_cpu);
  tcase_add_test(tc, test_unclear_cases_are_timed);
  tcase_add_test(tc, test_trial_keeps_the_faster);
  tcase_add_test(tc, test_renderer_kinds);
  tcase_add_test(tc, test_gpu_device_nodes);
#endif
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(choice);
