// SPDX-License-Identifier: LGPL-2.1-or-later
// The texture of an output GL memory, registered with CUDA once per memory
// (kept on the memory: a pool's textures are registered on their first
// frame only) and unregistered when the memory goes, on its GL thread.
// Keyed by the memory, not the texture's name, so a name GL gives again to
// a new texture never finds the old registration.
#pragma once

#include <gst/gl/gl.h>

#include "cuda_driver.hpp"
#include "ef/result.hpp"

namespace ef::gst::cuda {

// On `gl`'s thread, with `context` current: the registration of `texture`,
// the texture of `mem`.
Result<CUgraphicsResource> registered_texture(const Driver &d, GstGLContext *gl, CUcontext context,
                                              GstMemory *mem, guint texture);

}  // namespace ef::gst::cuda
