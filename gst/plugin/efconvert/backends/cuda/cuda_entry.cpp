// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend's registry entry (backend_registry.hpp).
#include "common/gl_limits.hpp"
#include "cuda_backend.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "efconvert/backends/gl/gl_device.hpp"

namespace ef::gst {

namespace {

// The GL context of a GL-memory output, from the device's pool: every
// frame's interop (map, copy, unmap) waits on its context's GL thread, so
// one context for all streams bounds them (16 decoded streams on an H200,
// run18: one 22 % of the decoders' rate to GL alone, 4 56 %, 8 83 %, one
// each 112 %): one each, as every decoder makes its own, the pool's slots
// in turn up to its size (a context beside the element, a GL sink's,
// still comes first).
Result<GstGLContext *> output_context(const BackendContext &ctx) {
  return gl_device(ctx.devices).context().ensure(ctx.element, kMaxGlContextPool);
}

// Frames in CUDA memory are the only ones it reads, and no other backend
// does: it costs no copy on the GPU, where the frame stays.
Cost cost(const Machine &, const Facts &) {
  return {1, "the input is CUDA memory"};
}

SizeLimit size_limit(const BackendContext &ctx, FrameMemory, FrameMemory out) {
  if (out == FrameMemory::Gl)
    if (auto context = output_context(ctx))
      return gl_size_limit(*context);
  return cpu_size_limit();
}

Result<std::unique_ptr<ConvertBackend>> make(const BackendContext &ctx, const GstVideoInfo &in,
                                             const OutputSpec &out, const Conversion &c) {
  GstGLContext *gl = nullptr;
  if (c.out_memory == FrameMemory::Gl) {
    auto context = output_context(ctx);
    if (!context)
      return Error{context.error().code,
                   "the CUDA backend's GL output has no GL context: " + context.error().message};
    gl = *context;
  }
  return make_cuda_backend(in, out, gl);
}

}  // namespace

const BackendEntry &cuda_backend_entry() {
  static const BackendEntry entry{
      .value = 3,
      .name = "cuda",
      .label = "CUDA",
      .blurb = "One CUDA kernel on the frame's own CUDA context (frames in CUDA memory)",
      .when =
          "CUDA for frames in CUDA memory (NVDEC's; on their own CUDA context), whatever the "
          "output's memory",
      .table = cuda_table,
      .device = &gl_device_type(),
      .device_always = false,  // GL-memory outputs only
      .pipelines_readbacks = false,
      .honours = kGlContexts,
      .compute_missing = nullptr,
      .observe = nullptr,
      .cost = cost,
      .learn = nullptr,
      .size_limit = size_limit,
      .make = make,
  };
  return entry;
}

}  // namespace ef::gst
