// SPDX-License-Identifier: LGPL-2.1-or-later
// The stress runner's GL display, where GstGL is built (stress_nogl.cpp
// where it is not: no pipeline there has a GL element).
#include <gst/gl/gl.h>

#include "stress.hpp"

namespace ef::stress {

namespace {

GstGLDisplay *shared_gl_display() {
  static GstGLDisplay *display = gst_gl_display_new();
  return display;
}

}  // namespace

void Pipeline::share_gl_display() {
  GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
  gst_context_set_gl_display(context, shared_gl_display());
  gst_element_set_context(pipeline_, context);
  gst_context_unref(context);
}

bool gl_context_alive() {
  GstGLDisplay *display = shared_gl_display();
  GST_OBJECT_LOCK(display);
  GstGLContext *context = gst_gl_display_get_gl_context_for_thread(display, nullptr);
  GST_OBJECT_UNLOCK(display);
  if (!context)
    return false;
  gst_object_unref(context);
  return true;
}

}  // namespace ef::stress
