// SPDX-License-Identifier: LGPL-2.1-or-later
// A GL display and a created GL context of its own for a unit test below
// the elements (GST_GL_WINDOW=egl-device in the tests' environment); fails
// the test with GstGL's reason where none can be made.
#pragma once

#include <gst/check/gstcheck.h>
#include <gst/gl/gl.h>

#include "common/gst_ptr.hpp"

namespace ef::test {

struct TestGlContext {
  gst::ObjectPtr<GstGLDisplay> display;
  gst::ObjectPtr<GstGLContext> context;

  TestGlContext() {
    display.reset(gst_gl_display_new());
    context.reset(gst_gl_context_new(display.get()));
    GError *error = nullptr;
    fail_unless(gst_gl_context_create(context.get(), nullptr, &error), "no GL context: %s",
                error ? error->message : "?");
  }
};

}  // namespace ef::test
