// SPDX-License-Identifier: LGPL-2.1-or-later
// The largest frame a GL context can sample and render: the smallest of
// GL_MAX_TEXTURE_SIZE, GL_MAX_RENDERBUFFER_SIZE and GL_MAX_VIEWPORT_DIMS.
#pragma once

#include <gst/gl/gl.h>

#include "size_limits.hpp"

namespace ef::gst {

// Queried on the context's thread once, then kept on the context.
SizeLimit gl_size_limit(GstGLContext *context);

}  // namespace ef::gst
