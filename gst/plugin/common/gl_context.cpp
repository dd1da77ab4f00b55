// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_context.hpp"

#include <gst/gl/gstglfuncs.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>

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

// The contexts ensure(element, K) hands out, one pool per GstGLDisplay,
// kept on the display (its qdata, freed with it: a display gone, or
// another one at the same address, never hands out the old one's), each
// slot a weak reference: a context lives as long as the elements that took
// it (each holds its own reference, as GstGL's elements do) and a slot
// whose context went is filled again when its turn comes. The turn is kept
// per K, so elements asking for 2 and for 4 on one display each go round
// their own first K slots. Under `finding`.
struct ContextPool {
  GWeakRef slots[kMaxGlContextPool];
  std::map<unsigned, unsigned> turns;

  ContextPool() {
    for (GWeakRef &slot : slots)
      g_weak_ref_init(&slot, nullptr);
  }
  ~ContextPool() {
    for (GWeakRef &slot : slots)
      g_weak_ref_clear(&slot);
  }
  ContextPool(const ContextPool &) = delete;
  ContextPool &operator=(const ContextPool &) = delete;
};

ContextPool &pool_of(GstGLDisplay *display) {
  static const GQuark key = g_quark_from_static_string("ef-gl-context-pool");
  auto *pool = static_cast<ContextPool *>(g_object_get_qdata(G_OBJECT(display), key));
  if (!pool) {
    pool = new ContextPool;
    g_object_set_qdata_full(G_OBJECT(display), key, pool,
                            [](gpointer p) { delete static_cast<ContextPool *>(p); });
  }
  return *pool;
}

// The context of the next slot in turn of the first `n` of `display`'s
// pool (a reference), made there (sharing with a living one of the pool,
// else with the application's `other`) where the slot has none; `taken`
// says which. Under `finding`.
GstGLContext *pool_context(GstGLDisplay *display, GstGLContext *other, unsigned n,
                           std::string &taken, GError **error) {
  ContextPool &pool = pool_of(display);
  const unsigned slot = pool.turns[n]++ % n;
  taken =
      "slot " + std::to_string(slot + 1) + " of " + std::to_string(n) + " of the display's pool";
  if (gpointer living = g_weak_ref_get(&pool.slots[slot])) {
    taken += " (shared)";
    return GST_GL_CONTEXT(living);
  }
  GstGLContext *share = nullptr;
  for (unsigned i = 0; i < kMaxGlContextPool && !share; ++i)
    share = static_cast<GstGLContext *>(g_weak_ref_get(&pool.slots[i]));
  GstGLContext *made = nullptr;
  GST_OBJECT_LOCK(display);
  const bool ok = gst_gl_display_create_context(display, share ? share : other, &made, error);
  if (ok)
    gst_gl_display_add_context(display, made);
  GST_OBJECT_UNLOCK(display);
  if (share)
    gst_object_unref(share);
  if (!ok)
    return nullptr;
  g_weak_ref_set(&pool.slots[slot], made);
  taken += " (made)";
  return made;
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

bool ElementGlContext::has_display() {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  return display_ != nullptr;
}

Result<GstGLContext *> ElementGlContext::ensure(GstElement *element, unsigned pool) {
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
  pool_ = pool;
  if (context_) {
    taken_ = "found beside the element";
    return context_;
  }
  GError *error = nullptr;
  if (pool > 0) {
    context_ = pool_context(display_, other_, std::min(pool, kMaxGlContextPool), taken_, &error);
    if (context_)
      return context_;
    taken_.clear();
    return context_error(error);
  }
  GST_OBJECT_LOCK(display_);
  do {
    if (context_)
      gst_object_unref(context_);
    context_ = gst_gl_display_get_gl_context_for_thread(display_, nullptr);
    taken_ = context_ ? "one the display has" : "made on the display";
    if (!context_ && !gst_gl_display_create_context(display_, other_, &context_, &error)) {
      GST_OBJECT_UNLOCK(display_);
      taken_.clear();
      return context_error(error);
    }
  } while (!gst_gl_display_add_context(display_, context_));
  GST_OBJECT_UNLOCK(display_);
  return context_;
}

void ElementGlContext::retake_unless(unsigned pool) {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  if (context_ && pool_ != pool) {
    gst_object_unref(context_);
    context_ = nullptr;
    taken_.clear();
  }
}

std::string ElementGlContext::taken() {
  std::lock_guard<std::recursive_mutex> lock(lock_);
  return taken_;
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
  taken_.clear();
}

}  // namespace ef::gst
