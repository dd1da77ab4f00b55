// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_select.hpp"

#include <algorithm>
#include <string>

#include "backend_choice.hpp"
#include "backend_table.hpp"
#include "backend_trial.hpp"
#include "convert_caps.hpp"
#ifdef EF_HAVE_GSTGL
#include "common/gl_limits.hpp"
#include "gpu_device.hpp"
#include "gl/gl_converter.hpp"
#endif

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

std::unique_ptr<ConvertBackend> chosen(GstElement *element, ConvertState &s,
                                       std::unique_ptr<ConvertBackend> backend,
                                       const std::string &reason) {
  GST_INFO_OBJECT(element, "backend %s: %s", backend->name(), reason.c_str());
  std::lock_guard lock(s.lock);
  s.reason = reason;
  return backend;
}

#ifdef EF_HAVE_GSTGL
// The pool the GL context is taken from when caps are set (where
// gl-contexts took none before). CUDA input: only the CUDA backend's
// GL-memory output uses GL, and every frame's interop (map, copy, unmap)
// waits on its context's GL thread, so one context for all streams bounds
// them (16 decoded streams on an H200, run18: one 22 % of the decoders'
// rate to GL alone, 4 56 %, 8 83 %, one each 112 %): one each, as every
// decoder makes its own, the pool's slots in turn up to its size (a
// context beside the element, a GL sink's, still comes first). Else any
// context of the display, as GstGL's elements take.
unsigned pool_at_caps(FrameMemory in) {
  return in == FrameMemory::Cuda ? kMaxGlContextPool : 0;
}

// The renderer's kind. EF_GL_RENDERER_KIND (hardware, software) overrides
// what its name says.
GlKind renderer_kind(ConvertState &s) {
  return gl_kind_of(s.gl.renderer(), g_getenv("EF_GL_RENDERER_KIND"));
}

// The GL backend, or why not.
Result<std::unique_ptr<ConvertBackend>> try_gl_backend(GstElement *element, ConvertState &s,
                                                       const Settings &st) {
  auto context = s.gl.ensure(element);
  if (!context)
    return context.error();
  const SizeLimit limit = gl_size_limit(*context);
  for (gint side : {GST_VIDEO_INFO_WIDTH(&s.in_info), GST_VIDEO_INFO_HEIGHT(&s.in_info),
                    s.out.width(), s.out.height()})
    if (side > limit.max_side)
      return Error{E2BIG, "a side of " + std::to_string(side) + " exceeds " + limit.what + " " +
                              std::to_string(limit.max_side)};
  // Compute where fragments are the slow stage: hardware GL (compute GPUs
  // shade fragments on a few graphics units); a software rasterizer runs
  // fragments many times faster than compute invocations.
  const bool hardware = renderer_kind(s) == GlKind::Hardware;
  const bool compute = st.gl_shader == GST_EF_CONVERT_GL_SHADER_COMPUTE ||
                       (st.gl_shader == GST_EF_CONVERT_GL_SHADER_AUTO && hardware);
  return make_gl_backend(element, *context, s.in_info, s.out,
                         {st.cache_capacity, compute, hardware, st.gpu_timing});
}

// Whether the GL backend may run compute shaders for these caps: the
// context has them and gl-shader does not force fragments; "" if so, else
// why not. Without a context, or with `may_open` false (GL is not to be
// opened: gl_left_closed), "" (trying the backend says why it is missing).
std::string gl_compute_missing(GstElement *element, ConvertState &s, const Settings &st,
                               bool may_open) {
  if (st.gl_shader == GST_EF_CONVERT_GL_SHADER_FRAGMENT)
    return "gl-shader=fragment, and the GL backend writes tensors with a compute shader";
  if (!may_open)
    return {};
  auto context = s.gl.ensure(element);
  if (context && !GlConverter::computes(*context))
    return "the GL backend writes tensors with a compute shader (GL 4.3, GLES 3.1), and this "
           "GL context has none";
  return {};
}

// Whether GL's table has `c` here: its rows that a compute shader makes
// count only where the context computes (`why` says why not).
bool gl_makes(GstElement *element, ConvertState &s, const Settings &st, const Conversion &c,
              std::string &why, bool may_open) {
  if (!makes(gl_table(), c))
    return false;
  if (makes(gl_table(), c, false))
    return true;
  why = gl_compute_missing(element, s, st, may_open);
  return why.empty();
}

// backend=auto on frames in plain memory both ways, GL not open yet (no
// display set on the element or found at NULL -> READY) and no GPU here
// (gpu_device): GL would be a software rasterizer, which the rules give
// the CPU, so it is not opened to find that out. The reason, or "" where
// GL is to be asked.
std::string gl_left_closed(ConvertState &s, const Conversion &c) {
  auto plain = [](FrameMemory m) { return m == FrameMemory::System || m == FrameMemory::DmaBuf; };
  std::string why;
  if (!plain(c.in_memory) || !plain(c.out_memory) || s.gl.has_display() ||
      gl_may_be_hardware(g_getenv("EF_GL_RENDERER_KIND"), why))
    return {};
  Machine m;
  m.in = c.in_memory;
  m.out = c.out_memory;
  m.gl = GlKind::Software;
  if (choose_backend(m).pick != Pick::Cpu)
    return {};
  return why +
         ": GL would render in software, where the CPU backend is faster (no GL display "
         "opened)";
}

// This machine as backend=auto sees it for these caps.
Machine describe_machine(GstElement *element, ConvertState &s, const Settings &st, GstCaps *incaps,
                         GstCaps *outcaps) {
  Machine m;
  m.in = memory_of(incaps);
  m.out = memory_of(outcaps);
  // The cores the CPU backend will use: n-threads caps them.
  const guint online = std::max(1u, g_get_num_processors());
  m.cores = st.n_threads == 0 ? online : std::min(st.n_threads, online);
  auto context = s.gl.ensure(element);
  if (!context) {
    m.renderer = context.error().message;
    return m;
  }
  m.renderer = s.gl.renderer();
  m.gl = renderer_kind(s);
  return m;
}
#endif

// backend=cuda, and frames in CUDA memory under auto: the CUDA backend,
// the only one that reads CUDA memory (the frame stays where NVDEC decoded
// it). Null with an error posted where it cannot.
std::unique_ptr<ConvertBackend> cuda_backend(GstElement *element, ConvertState &s,
                                             const Conversion &c) {
#ifdef EF_HAVE_CUDA
  if (!makes(cuda_table(), c)) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("backend=cuda cannot convert %s", describe(c).c_str()),
                      ("backends that can: %s", backends_making(c).c_str()));
    return nullptr;
  }
  GstGLContext *gl = nullptr;
  if (c.out_memory == FrameMemory::Gl) {
    auto context = s.gl.ensure(element, pool_at_caps(c.in_memory));
    if (!context) {
      GST_ELEMENT_ERROR(
          element, RESOURCE, FAILED,
          ("The CUDA backend's GL output has no GL context: %s", context.error().message.c_str()),
          (nullptr));
      return nullptr;
    }
    gl = *context;
  }
  auto cuda = make_cuda_backend(s.in_info, s.out, gl);
  if (cuda)
    return chosen(element, s, std::move(cuda).value(),
                  c.in_memory == FrameMemory::Cuda ? "the input is CUDA memory" : "asked for");
  GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                    ("The CUDA backend is not available: %s", cuda.error().message.c_str()),
                    (nullptr));
#else
  (void)s;
  GST_ELEMENT_ERROR(
      element, CORE, NOT_IMPLEMENTED,
      ("efconvert was built without its CUDA backend, which %s needs", describe(c).c_str()),
      ("the build found no clang to compile the kernel with"));
#endif
  return nullptr;
}

}  // namespace

std::unique_ptr<ConvertBackend> make_backend(GstElement *element, ConvertState &s,
                                             const Settings &st, GstCaps *incaps,
                                             GstCaps *outcaps) {
  const Conversion c = conversion_of(s.in_info, memory_of(incaps), s.out, memory_of(outcaps));
  if (st.backend == GST_EF_CONVERT_BACKEND_CUDA ||
      (st.backend == GST_EF_CONVERT_BACKEND_AUTO && c.in_memory == FrameMemory::Cuda))
    return cuda_backend(element, s, c);
  auto cpu = [&] { return make_cpu_backend(s.in_info, s.out, st.cache_capacity, st.n_threads); };
  const bool cpu_makes = makes(cpu_table(), c);
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU && cpu_makes)
    return chosen(element, s, cpu(), "asked for");
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("backend=cpu cannot convert %s", describe(c).c_str()),
                      ("backends that can: %s", backends_making(c).c_str()));
    return nullptr;
  }
#ifdef EF_HAVE_GSTGL
  const std::string closed =
      st.backend == GST_EF_CONVERT_BACKEND_AUTO && cpu_makes ? gl_left_closed(s, c) : "";
  std::string no_compute;
  const bool gl_can = gl_makes(element, s, st, c, no_compute, closed.empty());
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    if (!gl_can) {
      const std::string why = no_compute.empty() ? "" : ": " + no_compute;
      GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                        ("backend=gl cannot convert %s%s", describe(c).c_str(), why.c_str()),
                        ("backends that can: %s", backends_making(c).c_str()));
      return nullptr;
    }
    auto gl = try_gl_backend(element, s, st);
    if (gl)
      return chosen(element, s, std::move(gl).value(), "asked for");
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                      ("backend=gl is not available: %s", gl.error().message.c_str()), (nullptr));
    return nullptr;
  }
  if (!gl_can && cpu_makes)
    return chosen(element, s, cpu(),
                  "only the CPU backend converts " + describe(c) +
                      (no_compute.empty() ? "" : " here (" + no_compute + ")"));
  if (!closed.empty())
    return chosen(element, s, cpu(), closed);
  const Machine machine = describe_machine(element, s, st, incaps, outcaps);
  Choice choice = choose_backend(machine);
  if (!cpu_makes)
    choice = {Pick::Gl, choice.pick == Pick::Gl ? choice.reason
                                                : "only the GL backend converts " + describe(c)};
  if (choice.pick != Pick::Cpu) {
    auto gl = try_gl_backend(element, s, st);
    if (gl && choice.pick == Pick::Gl)
      return chosen(element, s, std::move(gl).value(), choice.reason);
    if (gl) {
      std::lock_guard lock(s.lock);
      s.reason.clear();  // the trial says why
      return make_trial_backend(element, cpu(), std::move(gl).value(), machine, choice.reason);
    }
    choice.reason = "the GL backend is not available: " + gl.error().message;
  }
  if (!cpu_makes) {
    GST_ELEMENT_ERROR(
        element, RESOURCE, FAILED,
        ("Only the GL backend converts %s: %s", describe(c).c_str(), choice.reason.c_str()),
        (nullptr));
    return nullptr;
  }
  return chosen(element, s, cpu(), choice.reason);
#else
  (void)incaps;
  (void)outcaps;
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    GST_ELEMENT_ERROR(element, CORE, NOT_IMPLEMENTED, ("backend=gl: built without GstGL"),
                      (nullptr));
    return nullptr;
  }
  if (!cpu_makes) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("efconvert cannot convert %s", describe(c).c_str()),
                      ("built without GstGL"));
    return nullptr;
  }
  return chosen(element, s, cpu(), "built without GstGL");
#endif
}

SizeLimit size_limit(GstElement *element, ConvertState &s, const Settings &st, GstCaps *incaps,
                     GstCaps *outcaps) {
#ifdef EF_HAVE_GSTGL
  const bool must_gl =
      st.backend == GST_EF_CONVERT_BACKEND_GL || is_gl_caps(incaps) || is_gl_caps(outcaps);
  if (must_gl)
    if (auto context = s.gl.ensure(element, pool_at_caps(memory_of(incaps))))
      return gl_size_limit(*context);
#else
  (void)element;
  (void)s;
  (void)st;
  (void)incaps;
  (void)outcaps;
#endif
  return cpu_size_limit();
}

}  // namespace ef::gst
