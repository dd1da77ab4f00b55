// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_errors.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cerrno>
#include <cstdio>

namespace ef::gst {

namespace {

const char *error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM:
      return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
      return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
      return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
      return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
      return "GL_OUT_OF_MEMORY";
    default:
      return "GL error";
  }
}

// A context that is lost may flag errors for ever: enough to name them.
constexpr int kMaxErrors = 8;

// Asked every pass, so that a test can fail one frame and not the next
// (it sets the variable between pushes, while no pass runs).
bool forced() {
  return g_strcmp0(g_getenv("EF_GL_FORCE_ERROR"), "pass") == 0;
}

}  // namespace

std::string take_gl_errors(GstGLContext *context) {
  const GstGLFuncs *gl = context->gl_vtable;
  std::string names;
  for (int i = 0; i < kMaxErrors; ++i) {
    const GLenum error = gl->GetError();
    if (error == GL_NO_ERROR)
      break;
    char code[16];
    std::snprintf(code, sizeof code, " (0x%04x)", error);
    names += (names.empty() ? "" : ", ") + std::string(error_name(error)) + code;
  }
  return names;
}

Result<void> check_gl_errors(GstGLContext *context, const char *what) {
  if (forced())
    context->gl_vtable->Enable(GL_INVALID_ENUM);  // no capability of that name
  const std::string errors = take_gl_errors(context);
  if (errors.empty())
    return {};
  return Error{EIO, std::string("GL refused ") + what + ": " + errors};
}

}  // namespace ef::gst
