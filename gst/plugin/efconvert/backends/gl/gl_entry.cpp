// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend's registry entry (backend_registry.hpp).
#include <string>

#include "common/gl_limits.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "gl_backend.hpp"
#include "gl_converter.hpp"
#include "gl_cost.hpp"
#include "gpu_device.hpp"
#include "gl_device.hpp"

namespace ef::gst {

namespace {

ElementGlContext &gl_of(const BackendContext &ctx) {
  return gl_device(ctx.devices).context();
}

// The renderer's kind. EF_GL_RENDERER_KIND (hardware, software) overrides
// what its name says.
GpuKind renderer_kind(ElementGlContext &gl) {
  return gl_kind_of(gl.renderer(), g_getenv("EF_GL_RENDERER_KIND"));
}

// backend=auto on frames in plain memory both ways, GL not open yet (no
// display set on the element or found at NULL -> READY) and no GPU here
// (gpu_device): GL would be a software rasterizer, which the cost model
// gives the CPU, so it is not opened to find that out. Why, or "" where GL
// is to be asked.
std::string left_closed(const BackendContext &ctx, FrameMemory in, FrameMemory out) {
  std::string why;
  if (ctx.settings.backend != kAutoBackend || !memory_kind(in).plain || !memory_kind(out).plain ||
      gl_of(ctx).has_display() || gl_may_be_hardware(g_getenv("EF_GL_RENDERER_KIND"), why))
    return {};
  return why;
}

// Whether the pass may run compute shaders: the context has them and
// gl-shader does not force fragments; "" if so, else why not. Without a
// context, or with GL left closed, "" (making the backend says why it is
// missing).
std::string compute_missing(const BackendContext &ctx, const Conversion &c) {
  if (ctx.settings.shader == ShaderStage::Fragment)
    return "gl-shader=fragment, and the GL backend writes tensors with a compute shader";
  if (!left_closed(ctx, c.in_memory, c.out_memory).empty())
    return {};
  auto context = gl_of(ctx).ensure(ctx.element);
  if (context && !GlConverter::computes(*context))
    return "the GL backend writes tensors with a compute shader (GL 4.3, GLES 3.1), and this "
           "GL context has none";
  return {};
}

Facts observe(const BackendContext &ctx, const Machine &m) {
  Facts f;
  if (const std::string why = left_closed(ctx, m.in, m.out); !why.empty()) {
    f.gpu = GpuKind::Software;
    f.renderer = why + ", no GL display opened";
    return f;
  }
  ElementGlContext &gl = gl_of(ctx);
  auto context = gl.ensure(ctx.element);
  if (!context) {
    f.renderer = context.error().message;
    return f;
  }
  f.renderer = gl.renderer();
  f.gpu = renderer_kind(gl);
  return f;
}

// What the first frame copied tells whether the GPU imports each side.
void learn(const BackendStats &before, const BackendStats &after, Facts &f) {
  f.src = after.uploads > before.uploads ? Import::No : Import::Yes;
  f.dst = after.readbacks > before.readbacks ? Import::No : Import::Yes;
}

SizeLimit size_limit(const BackendContext &ctx, FrameMemory, FrameMemory) {
  if (auto context = gl_of(ctx).ensure(ctx.element))
    return gl_size_limit(*context);
  return cpu_size_limit();
}

Result<std::unique_ptr<ConvertBackend>> make(const BackendContext &ctx, const GstVideoInfo &in,
                                             const OutputSpec &out, const Conversion &) {
  ElementGlContext &gl = gl_of(ctx);
  auto context = gl.ensure(ctx.element);
  if (!context)
    return context.error();
  const SizeLimit limit = gl_size_limit(*context);
  for (gint side :
       {GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in), out.width(), out.height()})
    if (side > limit.max_side)
      return Error{E2BIG, "a side of " + std::to_string(side) + " exceeds " + limit.what + " " +
                              std::to_string(limit.max_side)};
  // Compute where fragments are the slow stage: hardware GL (compute GPUs
  // shade fragments on a few graphics units); a software rasterizer runs
  // fragments many times faster than compute invocations.
  const BackendSettings &st = ctx.settings;
  const bool hardware = renderer_kind(gl) == GpuKind::Hardware;
  const bool compute =
      st.shader == ShaderStage::Compute || (st.shader == ShaderStage::Auto && hardware);
  return make_gl_backend(ctx.element, *context, in, out,
                         {st.cache_capacity, compute, hardware, st.gpu_timing});
}

}  // namespace

const BackendEntry &gl_backend_entry() {
  static const BackendEntry entry{
      .value = 1,
      .name = "gl",
      .label = "GL",
      .blurb = "One shader pass (GstGL)",
      .when =
          "GL for outputs in GL memory (textures, or tensors as GL buffers), the CPU where GL is a "
          "software rasterizer (llvmpipe, softpipe) or missing or would upload and read back "
          "every frame",
      .table = gl_table,
      .device = &gl_device_type(),
      .device_always = true,
      .pipelines_readbacks = true,
      .honours = kCacheCapacity | kReadbackDepth | kGlShader | kGpuTiming | kGlContexts,
      .compute_missing = compute_missing,
      .observe = observe,
      .cost = gl_cost,
      .learn = learn,
      .size_limit = size_limit,
      .make = make,
  };
  return entry;
}

}  // namespace ef::gst
