// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_limits.hpp"

#include <gst/gl/gstglfuncs.h>

#include <algorithm>

namespace ef::gst {

namespace {

GQuark limit_quark() {
  static GQuark q = g_quark_from_static_string("ef-gl-max-side");
  return q;
}

void query_on_gl_thread(GstGLContext *context, gpointer data) {
  const GstGLFuncs *gl = context->gl_vtable;
  GLint texture = 0, renderbuffer = 0, viewport[2] = {0, 0};
  gl->GetIntegerv(GL_MAX_TEXTURE_SIZE, &texture);
  gl->GetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
  gl->GetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
  gint side = G_MAXINT;
  for (GLint v : {texture, renderbuffer, viewport[0], viewport[1]})
    if (v > 0)
      side = std::min(side, gint(v));
  *static_cast<gint *>(data) = side;
}

}  // namespace

SizeLimit gl_size_limit(GstGLContext *context) {
  auto side = GPOINTER_TO_INT(g_object_get_qdata(G_OBJECT(context), limit_quark()));
  if (side <= 0) {
    side = G_MAXINT;
    gst_gl_context_thread_add(context, query_on_gl_thread, &side);
    g_object_set_qdata(G_OBJECT(context), limit_quark(), GINT_TO_POINTER(side));
  }
  return {side, "this GL context's maximum texture size"};
}

}  // namespace ef::gst
