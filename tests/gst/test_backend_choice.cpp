// SPDX-License-Identifier: LGPL-2.1-or-later
// backend=auto's decision from a description of the machine: where the
// frames live, the renderer, what the GPU imports and the cores.
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

#include <string>

#include "efconvert/backend_choice.hpp"
#include "efconvert/gpu_device.hpp"

using namespace ef::gst;

namespace {

Machine hardware(FrameMemory in, FrameMemory out, unsigned cores) {
  Machine m;
  m.gl = GlKind::Hardware;
  m.renderer = "NVIDIA H200/PCIe/SSE2";
  m.in = in;
  m.out = out;
  m.cores = cores;
  return m;
}

bool says(const Choice &c, const char *text) {
  return c.reason.find(text) != std::string::npos;
}

}  // namespace

GST_START_TEST(test_gl_memory_takes_gl) {
  for (unsigned cores : {1u, 16u}) {
    Machine m = hardware(FrameMemory::Gl, FrameMemory::System, cores);
    // A download against a read-back: measured, not assumed.
    Choice c = choose_backend(m);
    fail_unless(c.pick == Pick::Trial && says(c, "input is GL memory"), "%s", c.reason.c_str());
    m.out = FrameMemory::Gl;
    fail_unless(choose_backend(m).pick == Pick::Gl, "GL memory in and out");
    m.in = FrameMemory::System;
    c = choose_backend(m);
    fail_unless(c.pick == Pick::Gl && says(c, "output is GL memory"), "%s", c.reason.c_str());
    // Only GL makes GL memory, in software too.
    m.gl = GlKind::Software;
    fail_unless(choose_backend(m).pick == Pick::Gl, "GL memory out on llvmpipe");
  }
}
GST_END_TEST;

// A software rasterizer's GL memory is read back by a copy in memory: the
// CPU backend converts GL memory in to system memory out.
GST_START_TEST(test_gl_input_in_software_takes_cpu) {
  Machine m = hardware(FrameMemory::Gl, FrameMemory::System, 2);
  m.gl = GlKind::Software;
  m.renderer = "llvmpipe (LLVM 15.0.7, 256 bits)";
  const Choice c = choose_backend(m);
  fail_unless(c.pick == Pick::Cpu && says(c, "software"), "%s", c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_software_or_no_gl_takes_cpu) {
  Machine m = hardware(FrameMemory::DmaBuf, FrameMemory::System, 2);
  m.gl = GlKind::Software;
  m.renderer = "llvmpipe (LLVM 15.0.7, 256 bits)";
  m.src = m.dst = Import::Yes;
  Choice c = choose_backend(m);
  fail_unless(c.pick == Pick::Cpu && says(c, "software") && says(c, "llvmpipe"), "%s",
              c.reason.c_str());
  m.gl = GlKind::None;
  m.renderer = "no GL context could be made";
  c = choose_backend(m);
  fail_unless(c.pick == Pick::Cpu && says(c, "no GL"), "%s", c.reason.c_str());
}
GST_END_TEST;

// System memory both ways on hardware GL: not known before a frame, so
// timed; once the GL frame showed an upload and a readback (NVIDIA refuses
// memfds: 1186 us a frame against the CPU's 288 us on 16 cores, 465 us on
// one), the CPU at any core count.
GST_START_TEST(test_copies_both_ways_take_cpu) {
  for (unsigned cores : {1u, 2u, 16u}) {
    Machine m = hardware(FrameMemory::System, FrameMemory::System, cores);
    Choice c = choose_backend(m);
    fail_unless(c.pick == Pick::Trial, "%u cores, imports unknown: %s", cores, c.reason.c_str());
    m.src = m.dst = Import::No;
    c = choose_backend(m);
    fail_unless(c.pick == Pick::Cpu && says(c, "upload and a readback"), "%u cores: %s", cores,
                c.reason.c_str());
  }
}
GST_END_TEST;

// One copy, or none on many cores: only timing tells; no copy and one core: GL.
GST_START_TEST(test_unclear_cases_are_timed) {
  for (auto [src, dst] : {std::pair{Import::Yes, Import::No}, std::pair{Import::No, Import::Yes},
                          std::pair{Import::Yes, Import::Yes}}) {
    Machine m = hardware(FrameMemory::DmaBuf, FrameMemory::DmaBuf, 16);
    m.src = src;
    m.dst = dst;
    const Choice c = choose_backend(m);
    fail_unless(c.pick == Pick::Trial && says(c, "16 cores"), "%s", c.reason.c_str());
  }
  Machine m = hardware(FrameMemory::DmaBuf, FrameMemory::System, 1);
  m.src = m.dst = Import::Yes;
  const Choice c = choose_backend(m);
  fail_unless(c.pick == Pick::Gl && says(c, "only core"), "%s", c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_trial_keeps_the_faster) {
  Machine m = hardware(FrameMemory::System, FrameMemory::System, 16);
  m.src = Import::Yes;
  m.dst = Import::No;
  Choice c = settle_trial(m, 288, 1186, 4, 4);
  fail_unless(c.pick == Pick::Cpu, "%s", c.reason.c_str());
  fail_unless(says(c, "cpu 288 us, gl 1186 us") && says(c, "destination read back"), "%s",
              c.reason.c_str());
  c = settle_trial(m, 900, 120, 4, 4);
  fail_unless(c.pick == Pick::Gl && says(c, "timed the first frame 4 times each"), "%s",
              c.reason.c_str());
}
GST_END_TEST;

GST_START_TEST(test_renderer_kinds) {
  for (const char *soft :
       {"llvmpipe (LLVM 15.0.7, 256 bits)", "softpipe", "Mesa swrast", "Software Rasterizer"})
    fail_unless(gl_kind_of(soft, nullptr) == GlKind::Software, "%s", soft);
  fail_unless(gl_kind_of("NVIDIA H200/PCIe/SSE2", nullptr) == GlKind::Hardware);
  fail_unless(gl_kind_of("Mesa Intel(R) UHD Graphics 620", "") == GlKind::Hardware);
  fail_unless(gl_kind_of("llvmpipe", "hardware") == GlKind::Hardware);
  fail_unless(gl_kind_of("NVIDIA H200", "software") == GlKind::Software);
  fail_unless(gl_kind_of("llvmpipe", "bogus") == GlKind::Software);
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
  fail_unless(says({Pick::Cpu, why}, "no GPU device"), "%s", why.c_str());
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
  fail_unless(gl_may_be_hardware(nullptr, why, root) && says({Pick::Gl, why}, "renderD128"));
  fail_unless(gl_may_be_hardware("bogus", why, root));
  fail_if(gl_may_be_hardware("software", why, root));
  fail_unless(says({Pick::Cpu, why}, "EF_GL_RENDERER_KIND=software"), "%s", why.c_str());
  for (const char *name : {"dri/renderD128", "dri/card0", "nvidia0", "nvidiactl", "nvidia-uvm"})
    g_remove((root + "/" + name).c_str());
  g_rmdir((root + "/dri").c_str());
  fail_unless(gl_may_be_hardware("hardware", why, root), "forced, with no device");
  g_rmdir(dev);
  g_free(dev);
}
GST_END_TEST;

static Suite *choice_suite() {
  Suite *s = suite_create("backend_choice");
  TCase *tc = tcase_create("decision");
  tcase_add_test(tc, test_gl_memory_takes_gl);
  tcase_add_test(tc, test_gl_input_in_software_takes_cpu);
  tcase_add_test(tc, test_software_or_no_gl_takes_cpu);
  tcase_add_test(tc, test_copies_both_ways_take_cpu);
  tcase_add_test(tc, test_unclear_cases_are_timed);
  tcase_add_test(tc, test_trial_keeps_the_faster);
  tcase_add_test(tc, test_renderer_kinds);
  tcase_add_test(tc, test_gpu_device_nodes);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(choice);
