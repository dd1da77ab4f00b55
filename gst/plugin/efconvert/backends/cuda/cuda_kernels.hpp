// SPDX-License-Identifier: LGPL-2.1-or-later
// The kernel loaded once per CUDA context and process, shared by every
// element converting frames of that context: loading the PTX compiles it
// for the GPU (a quarter of a second on an H200), which 16 decoders' worth
// of efconverts would otherwise each pay at start. Entries are counted and
// unloaded with their last user, so a context made later at the same
// address never finds another's module.
#pragma once

#include "cuda_driver.hpp"
#include "ef/result.hpp"

namespace ef::gst {
// The PTX of cuda_kernel.cu, made at build time (meson's embed_ptx.py).
extern const char kEfCudaPtx[];
}  // namespace ef::gst

namespace ef::gst::cuda {

// The kernel on `context` (current on the calling thread), loaded on first
// use; each success is paired with a release_kernel().
Result<CUfunction> acquire_kernel(const Driver &d, CUcontext context);
// With `context` current.
void release_kernel(const Driver &d, CUcontext context);

}  // namespace ef::gst::cuda
