// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_context.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cerrno>
#include <vector>

namespace ef::gst {

namespace {

// One element of the process at a time finds or makes its display and
// context: elements of one pipeline starting at once (one per stream,
// each on its streaming thread) would each find no display yet, make
// their own and so a GL context and thread each, where the first one's,
// announced to the pipeline, serves all. Taken before an element's lock:
// the announcement sets the context on every element of the bin, this one
// and those waiting here.
std::mutex finding;

// The contexts `spread` hands out (kept for the process; a measurement
// only), and the turn. Under `finding`.
struct Spread {
  GstGLDisplay *display = nullptr;
  std::vector<GstGLContext *> contexts;
  size_t turn = 0;
};
Spread spread_contexts;

// A context of `display` in turn, made while fewer than `n` exist. Under
// `finding`.
GstGLContext *spread_context(GstGLDisplay *display, GstGLContext *other, unsigned n,
                             GError **error) {
  Spread &s = spread_contexts;
  if (s.display != display) {
    for (GstGLContext *c : s.contexts)
      gst_object_unref(c);
    s = Spread{display, {}, 0};
  }
  if (s.contexts.size() < n) {
    GstGLContext *made = nullptr;
    GstGLContext *share = s.contexts.empty() ? other : s.contexts.front();
    if (!gst_gl_display_create_context(display, share, &made, error))
      return nullptr;
    gst_gl_display_add_context(display, made);
    s.contexts.push_back(made);
  }
  return GST_GL_CONTEXT(gst_object_ref(s.contexts[s.turn++ % s.contexts.size()]));
}

// The error a failed context creation returns, `error` consumed.
Error context_error(GError *&error) {
  std::string why = error ? error->message : "unknown error";
  g_clear_error(&error);
  return Error{EIO, "no GL context could be made: " + why};
}

}  // namespace

void ElementGlContext::set_context(GstElement *element, GstContext *context) {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  gst_gl_handle_set_context(element, context, &display_, &other_);
}

bool ElementGlContext::handle_query(GstElement *element, GstQuery *query) {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  return gst_gl_handle_context_query(element, query, display_, context_, other_);
}

bool ElementGlContext::ensure_display(GstElement *element) {
  std::lock_guard<std::mutex> one_at_a_time(finding);
  std::lock_guard<std::recursive_mutex> lock(lock_);
  return display_ || gst_gl_ensure_element_data(element, &display_, &other_);
}

Result<GstGLContext *> ElementGlContext::ensure(GstElement *element, unsigned spread) {
  {
    std::lock_guard<std::recursive_mutex> lock(lock_);
    if (context_)
      return context_;
  }
  std::lock_guard<std::mutex> one_at_a_time(finding);
  std::lock_guard<std::recursive_mutex> lock(lock_);
  if (context_)
    return context_;
  if (!gst_gl_ensure_element_data(element, &display_, &other_))
    return Error{EIO, "no GL display could be opened"};
  if (!gst_gl_query_local_gl_context(element, GST_PAD_SRC, &context_))
    gst_gl_query_local_gl_context(element, GST_PAD_SINK, &context_);
  if (context_)
    return context_;
  GError *error = nullptr;
  if (spread > 1) {
    context_ = spread_context(display_, other_, spread, &error);
    if (context_)
      return context_;
    return context_error(error);
  }
  GST_OBJECT_LOCK(display_);
  do {
    if (context_)
      gst_object_unref(context_);
    context_ = gst_gl_display_get_gl_context_for_thread(display_, nullptr);
    if (!context_ && !gst_gl_display_create_context(display_, other_, &context_, &error)) {
      GST_OBJECT_UNLOCK(display_);
      return context_error(error);
    }
  } while (!gst_gl_display_add_context(display_, context_));
  GST_OBJECT_UNLOCK(display_);
  return context_;
}

std::string ElementGlContext::renderer() {
  GstGLContext *context;
  {
    std::lock_guard<std::recursive_mutex> lock(lock_);
    context = context_;
  }
  if (!context)
    return "";
  std::string name;
  gst_gl_context_thread_add(
      context,
      [](GstGLContext *ctx, gpointer out) {
        const GstGLFuncs *gl = ctx->gl_vtable;
        const GLubyte *r = gl->GetString(GL_RENDERER);
        *static_cast<std::string *>(out) = r ? reinterpret_cast<const char *>(r) : "";
      },
      &name);
  return name;
}

void ElementGlContext::reset() {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  for (GstGLContext **c : {&context_, &other_})
    if (*c) {
      gst_object_unref(*c);
      *c = nullptr;
    }
  if (display_) {
    gst_object_unref(display_);
    display_ = nullptr;
  }
}

}  // namespace ef::gst
