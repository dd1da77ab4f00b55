// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_sharing.hpp"

#include <cstdlib>
#include <cstring>

#include "convert_state.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// What efconvert does before caps: the display at NULL -> READY, and with
// `contexts` > 0 the context at READY -> PAUSED from a pool of that many.
struct Early {
  bool display = true;
  unsigned contexts = 0;
};

// gl-contexts, unless EF_GL_EARLY says otherwise (gl_sharing.hpp).
Early early(unsigned gl_contexts) {
  const char *v = g_getenv("EF_GL_EARLY");
  if (!v || !*v)
    return {true, gl_contexts};
  if (std::strcmp(v, "none") == 0)
    return {false, 0};
  if (std::strcmp(v, "context") == 0)
    return {true, 1};
  if (std::strncmp(v, "context:", 8) == 0) {
    const long n = std::strtol(v + 8, nullptr, 10);
    return {true, n >= 1 && n <= long(kMaxGlContextPool) ? unsigned(n) : 1};
  }
  return {true, 0};  // display
}

}  // namespace

void share_gl_early(GstElement *element, ConvertState &s, GstStateChange transition) {
  if (transition != GST_STATE_CHANGE_NULL_TO_READY &&
      transition != GST_STATE_CHANGE_READY_TO_PAUSED)
    return;
  unsigned gl_contexts;
  {
    std::lock_guard lock(s.lock);
    if (s.settings.backend == GST_EF_CONVERT_BACKEND_CPU)
      return;
    gl_contexts = s.settings.gl_contexts;
  }
  const Early when = early(gl_contexts);
  if (!when.display)
    return;
  // Failures are not the state change's: without GL, backend=auto runs on
  // the CPU and backend=gl says why when caps are set.
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !s.gl.ensure_display(element))
    GST_INFO_OBJECT(element, "no GL display to share with the pipeline");
  // A context kept from an earlier run under another gl-contexts (the
  // backend that used it went at PAUSED -> READY) is taken anew.
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    s.gl.retake_unless(when.contexts);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && when.contexts > 0) {
    if (auto context = s.gl.ensure(element, when.contexts))
      GST_INFO_OBJECT(element, "GL context %" GST_PTR_FORMAT " (%s), gl-contexts %u%s", *context,
                      s.gl.taken().c_str(), when.contexts,
                      gl_contexts != when.contexts ? " (EF_GL_EARLY)" : "");
    else
      GST_INFO_OBJECT(element, "no GL context to share: %s", context.error().message.c_str());
  }
}

}  // namespace ef::gst
