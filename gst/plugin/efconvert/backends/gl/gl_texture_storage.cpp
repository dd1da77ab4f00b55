// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_texture_storage.hpp"

#include <gst/gl/gstglfuncs.h>

namespace ef::gst {

namespace {

using TexStorage = void(GSTGLAPI *)(GLenum, GLsizei, GLenum, GLsizei, GLsizei);

TexStorage tex_storage(GstGLContext *context) {
  return reinterpret_cast<TexStorage>(gst_gl_context_get_proc_address(context, "glTexStorage2D"));
}

}  // namespace

bool has_texture_storage(GstGLContext *context) {
  return tex_storage(context) != nullptr;
}

bool allocate_texture_2d(GstGLContext *context, guint internal_format, guint format, gint width,
                         gint height, const void *pixels) {
  const GstGLFuncs *gl = context->gl_vtable;
  if (const TexStorage storage = tex_storage(context)) {
    storage(GL_TEXTURE_2D, 1, internal_format, width, height);
    if (pixels)
      gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, format, GL_UNSIGNED_BYTE, pixels);
    return true;
  }
  gl->TexImage2D(GL_TEXTURE_2D, 0, GLint(internal_format), width, height, 0, format,
                 GL_UNSIGNED_BYTE, pixels);
  return false;
}

}  // namespace ef::gst
