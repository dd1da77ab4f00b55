// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_cost.hpp"

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

}  // namespace

Cost gl_cost(const Machine &m, const Facts &gl) {
  if (gl.gpu == GpuKind::None)
    return {kUnusable, "no GL: " + gl.renderer};
  if (gl.gpu == GpuKind::Software)
    // A software rasterizer's textures are system memory: reading a GL
    // input back is a copy in memory, rendering costs more than the CPU pass.
    return {5, "GL renders in software (" + gl.renderer + "): the CPU backend is faster"};
  if (m.in == FrameMemory::Gl)
    // Either way a frame crosses the bus once: the CPU backend downloads the
    // input, the GL backend reads its output back. On the H200 (16 cores,
    // 1080p NV12 GL memory -> 640x640 RGB) the CPU pass was the faster, 857
    // against 1244 us a frame; on a slower CPU or a larger input it is not.
    return {2, "GL on " + gl.renderer +
                   ", the input is GL memory and the output system memory: the CPU backend "
                   "downloads the input, the GL backend reads its output back"};
  const std::string facts = "GL on " + gl.renderer + ", " + describe(gl.src, gl.dst);
  if (gl.src == Import::No && gl.dst == Import::No)
    // On a 16-core host with an H200: upload + render + readback 1186 us a
    // 1080p NV12 -> 640x640 RGB frame, the CPU pass 288 us (465 us on one
    // core): two copies through the bus cost more than the conversion.
    return {5, facts + ": an upload and a readback every frame cost more than the CPU pass"};
  if (gl.src == Import::Yes && gl.dst == Import::Yes)
    return {1, facts + ": no copy on the GPU"};
  return {2, facts};
}

GpuKind gl_kind_of(const std::string &renderer, const char *forced) {
  if (forced && std::strcmp(forced, "hardware") == 0)
    return GpuKind::Hardware;
  if (forced && std::strcmp(forced, "software") == 0)
    return GpuKind::Software;
  for (const char *soft : {"llvmpipe", "softpipe", "swrast", "Software Rasterizer"})
    if (renderer.find(soft) != std::string::npos)
      return GpuKind::Software;
  return GpuKind::Hardware;
}

}  // namespace ef::gst
