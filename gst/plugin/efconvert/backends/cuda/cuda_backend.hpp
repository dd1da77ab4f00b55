// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend: frames in CUDA memory converted by one kernel on their
// own CUDA context (cuda_backend.cpp).
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <memory>

#include "efconvert/backends/backend.hpp"
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

// What it makes (cuda_table.cpp; built wherever the pass's plan is, which
// the tests check on machines without CUDA).
const BackendTable &cuda_table();

// ENODEV where the NVIDIA driver's CUDA is not there (no libcuda.so.1, no
// GPU); EINVAL for a conversion the CUDA pass does not make. `gl`: the GL
// context of a GL-memory output (its textures get the frames), else null.
Result<std::unique_ptr<ConvertBackend>> make_cuda_backend(const GstVideoInfo &in,
                                                          const OutputSpec &out,
                                                          GstGLContext *gl = nullptr);

}  // namespace ef::gst
