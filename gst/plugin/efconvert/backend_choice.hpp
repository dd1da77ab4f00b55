// SPDX-License-Identifier: LGPL-2.1-or-later
// What backend=auto runs for one pair of caps, decided from what a frame
// will cost on this machine: where the frames live, whether GL runs on
// hardware, whether the GPU can take the source and the destination as they
// are, and the cores the CPU pass has. Pure: no GStreamer, no GL, so tests
// describe a machine and check the answer.
#pragma once

#include <string>

namespace ef::gst {

enum class Pick { Cpu, Gl, Trial };

// Gl: GL textures (memory:GLMemory, frames); GlBuffer: GL buffer objects
// (memory:GLBuffer, tensors that stay on the GPU); Cuda: CUDA device memory
// (memory:CUDAMemory, NVDEC's frames).
enum class FrameMemory { System, DmaBuf, Gl, GlBuffer, Cuda };

enum class GlKind { None, Software, Hardware };

// Whether the GPU took a side of the frame without a copy (an import), or
// needed one (an upload of the source, a readback of the destination).
enum class Import { Unknown, Yes, No };

struct Machine {
  GlKind gl = GlKind::None;
  std::string renderer;  // GL_RENDERER, or why there is no GL
  FrameMemory in = FrameMemory::System;
  FrameMemory out = FrameMemory::System;
  Import src = Import::Unknown;
  Import dst = Import::Unknown;
  unsigned cores = 1;
};

struct Choice {
  Pick pick;
  std::string reason;
};

// The choice before any frame; Trial where only timing both can tell.
Choice choose_backend(const Machine &machine);

// The choice once both backends were timed: the median microseconds per
// frame over `timed` conversions each (of the first frame), after `warmup`
// each; `machine` with what the first GL conversion showed.
Choice settle_trial(const Machine &machine, double cpu_us, double gl_us, unsigned timed,
                    unsigned warmup);

// The renderer's kind; `forced` ("hardware" or "software", else ignored)
// overrides the name, for a renderer the list does not know.
GlKind gl_kind_of(const std::string &renderer, const char *forced);

}  // namespace ef::gst
