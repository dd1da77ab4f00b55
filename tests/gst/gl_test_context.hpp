// SPDX-License-Identifier: LGPL-2.1-or-later
// A GL display and a created GL context of its own for a unit test below
// the elements (GST_GL_WINDOW=egl-device in the tests' environment); fails
// the test with GstGL's reason where none can be made.
#pragma once

// C++ headers before gstcheck.h, whose `fail` macro breaks <ios>.
#include <optional>

#include "common/gst_ptr.hpp"
#include "sanitized.hpp"
#include "tensors.hpp"

#include <gst/check/gstcheck.h>
#include <gst/gl/gl.h>

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

// A TestGlContext that every efconvert convert_one makes uses while it
// lives: its display set on each harness, where the element finds the
// context (added to the display) instead of making one. A sweep of
// hundreds of one-frame harnesses then makes one context and GL thread,
// not one each (most of such a test's time on llvmpipe). Not under a
// sanitizer: there LeakSanitizer finds Mesa's own allocations of the
// shared context unreachable at exit, in a module already unloaded (so no
// suppression can name them); each harness makes its own, as without it.
struct HarnessGlContext {
  std::optional<TestGlContext> gl;

  HarnessGlContext() {
    if (kSanitized)
      return;
    gl.emplace();
    gst_gl_display_add_context(gl->display.get(), gl->context.get());
    GstContext *shared = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
    gst_context_set_gl_display(shared, gl->display.get());
    share_with_harnesses(shared);
    gst_context_unref(shared);
  }
  ~HarnessGlContext() { share_with_harnesses(nullptr); }
};

}  // namespace ef::test
