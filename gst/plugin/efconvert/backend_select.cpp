// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_select.hpp"

#include <algorithm>
#include <string>

#include "backend_choice.hpp"
#include "backend_trial.hpp"
#include "convert_caps.hpp"
#ifdef EF_HAVE_GSTGL
#include "common/gl_limits.hpp"
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
  for (const GstVideoInfo *info : {&s.in_info, &s.out_info})
    for (gint side : {GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info)})
      if (side > limit.max_side)
        return Error{E2BIG, "a side of " + std::to_string(side) + " exceeds " + limit.what + " " +
                                std::to_string(limit.max_side)};
  // Compute where fragments are the slow stage: hardware GL (compute GPUs
  // shade fragments on a few graphics units); a software rasterizer runs
  // fragments many times faster than compute invocations.
  const bool hardware = renderer_kind(s) == GlKind::Hardware;
  const bool compute = st.gl_shader == GST_EF_CONVERT_GL_SHADER_COMPUTE ||
                       (st.gl_shader == GST_EF_CONVERT_GL_SHADER_AUTO && hardware);
  return make_gl_backend(element, *context, s.in_info, s.out_info, st.cache_capacity, compute,
                         hardware);
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

}  // namespace

std::unique_ptr<ConvertBackend> make_backend(GstElement *element, ConvertState &s,
                                             const Settings &st, GstCaps *incaps,
                                             GstCaps *outcaps) {
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU && is_gl_caps(outcaps)) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("backend=cpu cannot output GL memory"),
                      ("use backend=gl or auto"));
    return nullptr;
  }
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU)
    return chosen(element, s,
                  make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                  "asked for");
#ifdef EF_HAVE_GSTGL
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    auto gl = try_gl_backend(element, s, st);
    if (gl)
      return chosen(element, s, std::move(gl).value(), "asked for");
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                      ("backend=gl is not available: %s", gl.error().message.c_str()), (nullptr));
    return nullptr;
  }
  const Machine machine = describe_machine(element, s, st, incaps, outcaps);
  Choice choice = choose_backend(machine);
  if (choice.pick != Pick::Cpu) {
    auto gl = try_gl_backend(element, s, st);
    if (gl && choice.pick == Pick::Gl)
      return chosen(element, s, std::move(gl).value(), choice.reason);
    if (gl) {
      std::lock_guard lock(s.lock);
      s.reason.clear();  // the trial says why
      return make_trial_backend(
          element, make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
          std::move(gl).value(), machine, choice.reason);
    }
    choice.reason = "the GL backend is not available: " + gl.error().message;
  }
  return chosen(element, s,
                make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                choice.reason);
#else
  (void)incaps;
  (void)outcaps;
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    GST_ELEMENT_ERROR(element, CORE, NOT_IMPLEMENTED, ("backend=gl: built without GstGL"),
                      (nullptr));
    return nullptr;
  }
  return chosen(element, s,
                make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                "built without GstGL");
#endif
}

SizeLimit size_limit(GstElement *element, ConvertState &s, const Settings &st, GstCaps *incaps,
                     GstCaps *outcaps) {
#ifdef EF_HAVE_GSTGL
  const bool must_gl =
      st.backend == GST_EF_CONVERT_BACKEND_GL || is_gl_caps(incaps) || is_gl_caps(outcaps);
  if (must_gl)
    if (auto context = s.gl.ensure(element))
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
