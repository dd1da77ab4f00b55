// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend: one shader pass (gl_converter) on the element's GL
// context, its read-backs pipelined (gl_readback).
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <memory>

#include "efconvert/backends/backend.hpp"
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

// What it makes (gl_table.cpp).
const BackendTable &gl_table();

struct GlBackendOptions {
  uint32_t cache_capacity = 0;
  bool compute =
      false;  // the pass as a compute shader where the context has them (tensors always are)
  bool hardware = false;    // a GPU (not a software rasterizer), which imports no memfd
  bool gpu_timing = false;  // GL timer queries around the pass and the read-back
};
// EINVAL when the GL converter cannot do in -> out; ENOTSUP for a tensor
// where the context has no compute shaders. `element` names the element in
// log lines.
Result<std::unique_ptr<ConvertBackend>> make_gl_backend(GstElement *element, GstGLContext *context,
                                                        const GstVideoInfo &in,
                                                        const OutputSpec &out,
                                                        const GlBackendOptions &options);

}  // namespace ef::gst
