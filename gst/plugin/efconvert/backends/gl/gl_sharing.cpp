// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_sharing.hpp"

#include <cstdlib>
#include <cstring>

#include "common/gst_ptr.hpp"
#include "efconvert/backends/memory_kinds.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// What efconvert does before caps: the display at NULL -> READY, and with
// `contexts` > 0 the context at READY -> PAUSED from a pool of that many;
// `forced`: EF_GL_EARLY said so.
struct Early {
  bool display = true;
  unsigned contexts = 0;
  bool forced = false;
};

// gl-contexts, unless EF_GL_EARLY says otherwise (gl_sharing.hpp).
Early early(unsigned gl_contexts) {
  const char *v = g_getenv("EF_GL_EARLY");
  if (!v || !*v)
    return {true, gl_contexts, false};
  if (std::strcmp(v, "none") == 0)
    return {false, 0, true};
  if (std::strcmp(v, "context") == 0)
    return {true, 1, true};
  if (std::strncmp(v, "context:", 8) == 0) {
    const long n = std::strtol(v + 8, nullptr, 10);
    return {true, n >= 1 && n <= long(kMaxGlContextPool) ? unsigned(n) : 1, true};
  }
  return {true, 0, true};  // display
}

// Whether the neighbour on `pad` may bring (sink) or take (src) GL memory:
// its caps name it; upstream also where it is not linked yet (decodebin's
// decoder comes later) or takes anything (appsrc without caps). Downstream
// taking anything (fakesink, appsink) gets system memory, efconvert's
// first choice, and one not linked yet may be anything.
bool neighbour_may_carry_gl(GstElement *element, const char *pad_name) {
  ObjectPtr<GstPad> pad(gst_element_get_static_pad(element, pad_name));
  if (!pad || !gst_pad_is_linked(pad.get()))
    return true;
  CapsPtr caps(gst_pad_peer_query_caps(pad.get(), nullptr));
  return names_memory(caps.get(),
                      memory_bit(FrameMemory::Gl) | memory_bit(FrameMemory::GlBuffer)) ||
         (GST_PAD_IS_SINK(pad.get()) && gst_caps_is_any(caps.get()));
}

// Why the display is opened at NULL -> READY, where caps are not known
// yet: a GL path may come (gl_sharing.hpp). nullptr where none can: a
// pipeline of system-memory neighbours opens no GL at all unless
// backend=auto finds a GPU when caps are set (backend_select).
const char *display_wanted(GstElement *element, bool surely, const Early &when) {
  if (surely)
    return "the backend asked for converts on GL";
  if (when.forced)
    return "EF_GL_EARLY";
  if (when.contexts > 0)
    return "gl-contexts";
  if (neighbour_may_carry_gl(element, "sink"))
    return "upstream may bring GL memory";
  if (neighbour_may_carry_gl(element, "src"))
    return "downstream may take GL memory";
  return nullptr;
}

}  // namespace

void share_gl_early(GstElement *element, ElementGlContext &gl, GstStateChange transition,
                    unsigned gl_contexts, bool surely) {
  if (transition != GST_STATE_CHANGE_NULL_TO_READY &&
      transition != GST_STATE_CHANGE_READY_TO_PAUSED)
    return;
  const Early when = early(gl_contexts);
  if (!when.display)
    return;
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    const char *why = display_wanted(element, surely, when);
    if (!why) {
      GST_INFO_OBJECT(element, "no GL display at NULL -> READY: no neighbour carries GL memory");
      return;
    }
    // Failures are not the state change's: without GL, backend=auto runs
    // on the CPU and backend=gl says why when caps are set.
    if (!gl.ensure_display(element))
      GST_INFO_OBJECT(element, "no GL display to share with the pipeline (%s)", why);
  }
  // A context kept from an earlier run under another gl-contexts (the
  // backend that used it went at PAUSED -> READY) is taken anew.
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    gl.retake_unless(when.contexts);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED && when.contexts > 0) {
    if (auto context = gl.ensure(element, when.contexts))
      GST_INFO_OBJECT(element, "GL context %" GST_PTR_FORMAT " (%s), gl-contexts %u%s", *context,
                      gl.taken().c_str(), when.contexts,
                      gl_contexts != when.contexts ? " (EF_GL_EARLY)" : "");
    else
      GST_INFO_OBJECT(element, "no GL context to share: %s", context.error().message.c_str());
  }
}

}  // namespace ef::gst
