// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_gpu_timer.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cstring>

#ifndef GL_TIME_ELAPSED
#define GL_TIME_ELAPSED 0x88BF
#endif
#ifndef GL_GPU_DISJOINT_EXT
#define GL_GPU_DISJOINT_EXT 0x8FBB
#endif

namespace ef::gst {

// GstGL loads the query entry points for GLES 3.0 too, which has no timer
// queries of its own: the extension decides there.
bool has_timer_queries(GstGLContext *context) {
  const GstGLFuncs *gl = context->gl_vtable;
  if (!gl->GenQueries || !gl->BeginQuery || !gl->EndQuery || !gl->GetQueryObjectui64v ||
      !gl->GetQueryObjectuiv || !gl->GetQueryiv)
    return false;
  if (gst_gl_context_get_gl_api(context) & GST_GL_API_GLES2)
    return gst_gl_context_check_feature(context, "GL_EXT_disjoint_timer_query");
  return gst_gl_context_check_gl_version(context, GstGLAPI(GST_GL_API_OPENGL | GST_GL_API_OPENGL3),
                                         3, 3) ||
         gst_gl_context_check_feature(context, "GL_ARB_timer_query");
}

GpuTimer::GpuTimer(GstGLContext *context) : context_(context) {
  const char *off = g_getenv("EF_GL_GPU_TIMER");
  supported_ = has_timer_queries(context) && !(off && std::strcmp(off, "off") == 0);
  gles_ = (gst_gl_context_get_gl_api(context) & GST_GL_API_GLES2) != 0;
  if (!supported_)
    return;
  for (Slot &slot : ring_)
    context->gl_vtable->GenQueries(1, &slot.id);
}

GpuTimer::~GpuTimer() {
  if (!supported_)
    return;
  for (Slot &slot : ring_)
    context_->gl_vtable->DeleteQueries(1, &slot.id);
}

void GpuTimer::begin() {
  if (!supported_ || open_)
    return;
  const GstGLFuncs *gl = context_->gl_vtable;
  GLint current = 0;
  gl->GetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &current);
  if (current != 0)
    return;
  Slot &slot = ring_[next_];
  // kRing brackets old and still not done: the GPU is that far behind (a
  // context many elements share). This frame goes untimed rather than the
  // GL thread, and every element behind it, waiting for the result.
  if (slot.pending && !collect_slot(slot, false))
    return;
  next_ = (next_ + 1) % kRing;
  gl->BeginQuery(GL_TIME_ELAPSED, slot.id);
  slot.begun_us = g_get_monotonic_time();
  open_ = &slot;
}

void GpuTimer::end() {
  if (!open_)
    return;
  context_->gl_vtable->EndQuery(GL_TIME_ELAPSED);
  open_->pending = true;
  open_ = nullptr;
}

void GpuTimer::collect(bool wait) {
  if (!supported_)
    return;
  // Oldest first, so that a bracket not yet done ends the scan.
  for (size_t i = 0; i < kRing; ++i) {
    Slot &slot = ring_[(next_ + i) % kRing];
    if (slot.pending && &slot != open_ && !collect_slot(slot, wait))
      return;
  }
}

bool GpuTimer::collect_slot(Slot &slot, bool wait) {
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!wait) {
    GLuint available = 0;
    gl->GetQueryObjectuiv(slot.id, GL_QUERY_RESULT_AVAILABLE, &available);
    if (!available)
      return false;
  }
  GLuint64 ns = 0;
  gl->GetQueryObjectui64v(slot.id, GL_QUERY_RESULT, &ns);
  slot.pending = false;
  // A disjoint event (GLES: the GPU's clock changed, or it was reset)
  // makes the results in flight meaningless; the flag clears on reading.
  GLint disjoint = 0;
  if (gles_)
    gl->GetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
  if (disjoint)
    return true;
  // A bracket cannot have taken the GPU longer than the time since it was
  // begun. llvmpipe (Mesa 25) answers a context's first bracket with what
  // reads as an absolute timestamp (hours): such a result is dropped, not
  // summed.
  const gint64 bound_ns = (g_get_monotonic_time() - slot.begun_us + 1) * 1000;
  if (ns > GLuint64(bound_ns))
    return true;
  total_ns_.fetch_add(ns, std::memory_order_relaxed);
  timed_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace ef::gst
