// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_sharing.hpp"

#include <cstdlib>
#include <cstring>

#include "convert_state.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

enum class Early { None, Display, Context };

Early early() {
  const char *v = g_getenv("EF_GL_EARLY");
  if (v && std::strcmp(v, "none") == 0)
    return Early::None;
  if (v && std::strncmp(v, "context", 7) == 0)
    return Early::Context;
  return Early::Display;
}

// EF_GL_EARLY=context:N: how many contexts the elements spread over.
unsigned spread() {
  const char *v = g_getenv("EF_GL_EARLY");
  if (!v || std::strncmp(v, "context:", 8) != 0)
    return 1;
  const long n = std::strtol(v + 8, nullptr, 10);
  return n > 1 && n <= 64 ? unsigned(n) : 1;
}

}  // namespace

void share_gl_early(GstElement *element, ConvertState &s, GstStateChange transition) {
  const Early when = early();
  if (when == Early::None)
    return;
  {
    std::lock_guard lock(s.lock);
    if (s.settings.backend == GST_EF_CONVERT_BACKEND_CPU)
      return;
  }
  // Failures are not the state change's: without GL, backend=auto runs on
  // the CPU and backend=gl says why when caps are set.
  if (transition == GST_STATE_CHANGE_NULL_TO_READY && !s.gl.ensure_display(element))
    GST_INFO_OBJECT(element, "no GL display to share with the pipeline");
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && when == Early::Context)
    if (auto context = s.gl.ensure(element, spread()); !context)
      GST_INFO_OBJECT(element, "no GL context to share: %s", context.error().message.c_str());
}

}  // namespace ef::gst
