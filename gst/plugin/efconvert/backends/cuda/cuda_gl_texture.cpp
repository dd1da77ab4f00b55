// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_gl_texture.hpp"

namespace ef::gst::cuda {

namespace {

constexpr unsigned kTexture2D = 0x0DE1;  // GL_TEXTURE_2D

struct Registration {
  const Driver *d = nullptr;
  GstGLContext *gl = nullptr;  // a reference
  CUcontext context = nullptr;
  CUgraphicsResource resource = nullptr;
  guint texture = 0;
};

GQuark quark() {
  static const GQuark q = g_quark_from_static_string("ef-cuda-gl-texture");
  return q;
}

void unregister_on_gl_thread(GstGLContext *, gpointer data) {
  auto *r = static_cast<Registration *>(data);
  if (r->d->CtxPushCurrent(r->context) == CUDA_SUCCESS) {
    r->d->GraphicsUnregisterResource(r->resource);
    CUcontext popped = nullptr;
    r->d->CtxPopCurrent(&popped);
  }
}

void forget(gpointer data) {
  auto *r = static_cast<Registration *>(data);
  gst_gl_context_thread_add(r->gl, unregister_on_gl_thread, r);
  gst_object_unref(r->gl);
  delete r;
}

}  // namespace

Result<CUgraphicsResource> registered_texture(const Driver &d, GstGLContext *gl, CUcontext context,
                                              GstMemory *mem, guint texture) {
  auto *known =
      static_cast<Registration *>(gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(mem), quark()));
  if (known && known->context == context && known->texture == texture)
    return known->resource;
  if (!d.gl_interop())
    return Error{ENOTSUP, "the NVIDIA driver's libcuda.so.1 has no CUDA-GL interop"};
  auto *r = new Registration{&d, GST_GL_CONTEXT(gst_object_ref(gl)), context, nullptr, texture};
  if (CUresult res = d.GraphicsGLRegisterImage(&r->resource, texture, kTexture2D,
                                               CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD);
      res != CUDA_SUCCESS) {
    gst_object_unref(r->gl);
    delete r;
    return Error{EIO, "the output texture: " + d.describe("cuGraphicsGLRegisterImage", res)};
  }
  // Replaces (and so unregisters) one made on another context.
  gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(mem), quark(), r, forget);
  return r->resource;
}

}  // namespace ef::gst::cuda
