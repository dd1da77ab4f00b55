// SPDX-License-Identifier: LGPL-2.1-or-later
// GL's error flags around a frame's pass, in every build: a pass GL refused
// (GL_INVALID_VALUE from a dispatch too large, GL_OUT_OF_MEMORY) writes
// nothing, and its output must not go downstream as a frame. GstGL checks
// them only in its debug builds. The flags are the context's, which every
// element on it shares: those already set before a frame are another
// command's, taken (and logged) before the frame's own commands.
#pragma once

#include <gst/gl/gl.h>

#include <string>

#include "ef/result.hpp"

namespace ef::gst {

// The names of the errors GL has flagged since they were last taken, and
// clears them: "GL_INVALID_VALUE (0x0501)", comma-separated; "" for none.
// On the GL thread.
std::string take_gl_errors(GstGLContext *context);

// EIO naming `what` and the errors where GL flagged any since they were
// last taken. EF_GL_FORCE_ERROR=pass makes one (GL_INVALID_ENUM) first: a
// test's way to see a refused pass become a bad frame.
Result<void> check_gl_errors(GstGLContext *context, const char *what);

}  // namespace ef::gst
