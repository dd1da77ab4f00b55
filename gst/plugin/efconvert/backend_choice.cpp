// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_choice.hpp"

#include <cstdio>
#include <cstring>

namespace ef::gst {

namespace {

const char *describe(Import src, Import dst) {
  if (src == Import::Unknown || dst == Import::Unknown)
    return "imports not yet tried";
  if (src == Import::Yes)
    return dst == Import::Yes ? "source and destination imported" : "destination read back";
  return dst == Import::Yes ? "source uploaded" : "source uploaded and destination read back";
}

std::string facts(const Machine &m) {
  return "GL on " + m.renderer + ", " + describe(m.src, m.dst) + ", " + std::to_string(m.cores) +
         (m.cores == 1 ? " core" : " cores");
}

}  // namespace

Choice choose_backend(const Machine &m) {
  if (m.out == FrameMemory::Gl || m.out == FrameMemory::GlBuffer)
    return {Pick::Gl, "the output is GL memory, which only the GL backend makes"};
  if (m.gl == GlKind::Software)
    // A software rasterizer's textures are system memory: reading a GL
    // input back is a copy in memory, rendering costs more than the CPU pass.
    return {Pick::Cpu, "GL renders in software (" + m.renderer + "): the CPU backend is faster"};
  if (m.in == FrameMemory::Gl)
    // Either way a frame crosses the bus once: the CPU backend downloads the
    // input, the GL backend reads its output back. On the H200 (16 cores,
    // 1080p NV12 GL memory -> 640x640 RGB) the CPU pass was the faster, 857
    // against 1244 us a frame; on a slower CPU or a larger input it is not.
    return {Pick::Trial, "GL on " + m.renderer +
                             ", the input is GL memory and the output system memory: the CPU "
                             "backend downloads the input, the GL backend reads its output "
                             "back; timing both"};
  if (m.gl == GlKind::None)
    return {Pick::Cpu, "no GL: " + m.renderer};
  // Hardware GL on frames in system or dma-buf memory.
  if (m.src == Import::No && m.dst == Import::No)
    // On a 16-core host with an H200: upload + render + readback 1186 us a
    // 1080p NV12 -> 640x640 RGB frame, the CPU pass 288 us (465 us on one
    // core): two copies through the bus cost more than the conversion.
    return {Pick::Cpu, facts(m) +
                           ": an upload and a readback every frame cost more than the CPU "
                           "pass"};
  if (m.src == Import::Yes && m.dst == Import::Yes && m.cores == 1)
    return {Pick::Gl, facts(m) + ": no copy on the GPU, and the CPU pass would take the only core"};
  return {Pick::Trial, facts(m) + ": timing both"};
}

Choice settle_trial(const Machine &m, double cpu_us, double gl_us, unsigned timed,
                    unsigned warmup) {
  const Pick faster = gl_us < cpu_us ? Pick::Gl : Pick::Cpu;
  char times[200];
  std::snprintf(times, sizeof times,
                "timed the first frame %u times each after %u warm-up conversions: cpu %.0f us, "
                "gl %.0f us a frame (median)",
                timed, warmup, cpu_us, gl_us);
  return {faster, facts(m) + "; " + times};
}

GlKind gl_kind_of(const std::string &renderer, const char *forced) {
  if (forced && std::strcmp(forced, "hardware") == 0)
    return GlKind::Hardware;
  if (forced && std::strcmp(forced, "software") == 0)
    return GlKind::Software;
  for (const char *soft : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer"})
    if (renderer.find(soft) != std::string::npos)
      return GlKind::Software;
  return GlKind::Hardware;
}

}  // namespace ef::gst
