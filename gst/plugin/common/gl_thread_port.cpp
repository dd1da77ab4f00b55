// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_thread_port.hpp"

#include <cstring>

namespace ef::gst {

struct GlThreadPort::Source {
  GSource source;
  GlThreadPort *port;
};

namespace {

// A context GstGL runs a thread and main loop for (not one it wraps).
GMainContext *gl_thread_main_context(GstGLContext *context) {
  if (std::strcmp(G_OBJECT_TYPE_NAME(context), "GstGLWrappedContext") == 0)
    return nullptr;
  GstGLWindow *window = gst_gl_context_get_window(context);
  if (!window)
    return nullptr;
  GMainContext *main = window->main_context ? g_main_context_ref(window->main_context) : nullptr;
  gst_object_unref(window);
  return main;
}

bool on_gl_thread(GstGLContext *context) {
  GThread *thread = gst_gl_context_get_thread(context);
  const bool here = thread == g_thread_self();
  if (thread)
    g_thread_unref(thread);
  return here;
}

}  // namespace

GlThreadPort::GlThreadPort(GstGLContext *context)
    : context_(GST_GL_CONTEXT(gst_object_ref(context))) {
  // Ready time only: GLib dispatches the source when its ready time has
  // come (0: at once), no prepare or check of ours.
  static GSourceFuncs funcs = {nullptr, nullptr, &GlThreadPort::dispatch,
                               nullptr, nullptr, nullptr};
  GMainContext *main = gl_thread_main_context(context);
  if (!main)
    return;
  source_ = g_source_new(&funcs, sizeof(Source));
  reinterpret_cast<Source *>(source_)->port = this;
  g_source_set_name(source_, "ef GL thread port");
  g_source_set_ready_time(source_, -1);
  g_source_attach(source_, main);
  g_main_context_unref(main);
}

GlThreadPort::~GlThreadPort() {
  if (source_) {
    g_source_destroy(source_);
    g_source_unref(source_);
  }
  gst_object_unref(context_);
}

void GlThreadPort::run(GstGLContextThreadFunc func, gpointer data) {
  if (!source_) {
    gst_gl_context_thread_add(context_, func, data);
    return;
  }
  if (on_gl_thread(context_)) {
    func(context_, data);
    return;
  }
  std::lock_guard one_caller(callers_);
  std::unique_lock lock(lock_);
  func_ = func;
  data_ = data;
  pending_ = true;
  g_source_set_ready_time(source_, 0);  // wakes the GL thread's loop
  done_.wait(lock, [this] { return !pending_; });
}

gboolean GlThreadPort::dispatch(GSource *source, GSourceFunc, gpointer) {
  g_source_set_ready_time(source, -1);
  reinterpret_cast<Source *>(source)->port->run_pending();
  return G_SOURCE_CONTINUE;
}

// GL thread. After the notification nothing of the port is touched: the
// caller may return and drop it.
void GlThreadPort::run_pending() {
  GstGLContextThreadFunc func;
  gpointer data;
  {
    std::lock_guard lock(lock_);
    if (!pending_)
      return;
    func = func_;
    data = data_;
  }
  func(context_, data);
  std::lock_guard lock(lock_);
  pending_ = false;
  done_.notify_one();
}

}  // namespace ef::gst
