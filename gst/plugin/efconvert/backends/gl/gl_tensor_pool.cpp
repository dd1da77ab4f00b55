// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_tensor_pool.hpp"

#include <gst/gl/gstglfuncs.h>

#include "gl_tensor_buffer.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

struct GstEfGlTensorPool {
  GstBufferPool parent;
  GstGLContext *context;
  GstAllocator *allocator;
  GstGLBufferAllocationParams *params;  // of the configured size
  gboolean sync_meta;
};

struct GstEfGlTensorPoolClass {
  GstBufferPoolClass parent_class;
};

GType gl_tensor_pool_get_type();
G_DEFINE_TYPE(GstEfGlTensorPool, gl_tensor_pool, GST_TYPE_BUFFER_POOL)

GstEfGlTensorPool *self_of(GstBufferPool *pool) {
  return reinterpret_cast<GstEfGlTensorPool *>(pool);
}

const gchar **pool_options(GstBufferPool *) {
  static const gchar *options[] = {GST_BUFFER_POOL_OPTION_GL_SYNC_META, nullptr};
  return options;
}

gboolean pool_set_config(GstBufferPool *pool, GstStructure *config) {
  GstEfGlTensorPool *self = self_of(pool);
  GstCaps *caps = nullptr;
  guint size = 0, min = 0, max = 0;
  if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || size == 0)
    return FALSE;
  if (self->params)
    gst_gl_allocation_params_free(reinterpret_cast<GstGLAllocationParams *>(self->params));
  // Written by GL, read by GL (or copied out): GL_DYNAMIC_COPY.
  self->params = gst_gl_buffer_allocation_params_new(self->context, size, nullptr, GL_ARRAY_BUFFER,
                                                     GL_DYNAMIC_COPY);
  self->sync_meta = gst_buffer_pool_config_has_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  return self->params &&
         GST_BUFFER_POOL_CLASS(gl_tensor_pool_parent_class)->set_config(pool, config);
}

GstFlowReturn pool_alloc(GstBufferPool *pool, GstBuffer **buffer, GstBufferPoolAcquireParams *) {
  GstEfGlTensorPool *self = self_of(pool);
  GstMemory *mem = GST_MEMORY_CAST(gst_gl_base_memory_alloc(
      GST_GL_BASE_MEMORY_ALLOCATOR(self->allocator), (GstGLAllocationParams *)self->params));
  if (!mem) {
    GST_WARNING_OBJECT(pool, "cannot allocate a GL buffer");
    return GST_FLOW_ERROR;
  }
  *buffer = gst_buffer_new();
  gst_buffer_append_memory(*buffer, mem);
  // Added at allocation: the pool keeps it (marked pooled) for every reuse.
  if (self->sync_meta)
    gst_buffer_add_gl_sync_meta(self->context, *buffer);
  return GST_FLOW_OK;
}

void pool_finalize(GObject *object) {
  GstEfGlTensorPool *self = self_of(GST_BUFFER_POOL(object));
  if (self->params)
    gst_gl_allocation_params_free(reinterpret_cast<GstGLAllocationParams *>(self->params));
  gst_clear_object(&self->allocator);
  gst_clear_object(&self->context);
  G_OBJECT_CLASS(gl_tensor_pool_parent_class)->finalize(object);
}

void gl_tensor_pool_class_init(GstEfGlTensorPoolClass *klass) {
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
  pool_class->get_options = pool_options;
  pool_class->set_config = pool_set_config;
  pool_class->alloc_buffer = pool_alloc;
  G_OBJECT_CLASS(klass)->finalize = pool_finalize;
}

void gl_tensor_pool_init(GstEfGlTensorPool *) {}

}  // namespace

GstBufferPool *gl_tensor_pool_new(GstGLContext *context) {
  auto *self = static_cast<GstEfGlTensorPool *>(g_object_new(gl_tensor_pool_get_type(), nullptr));
  gst_object_ref_sink(self);
  self->context = GST_GL_CONTEXT(gst_object_ref(context));
  self->allocator = gl_tensor_buffer_allocator_new();
  return GST_BUFFER_POOL(self);
}

gboolean decide_gl_tensor_pool(GstElement *element, GstGLContext *context, GstQuery *query,
                               GstCaps *caps, gsize size) {
  guint min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered) {
    guint offered_size = 0;
    gst_query_parse_nth_allocation_pool(query, 0, nullptr, &offered_size, &min, &max);
  }
  min = MAX(min, 2u);
  GstBufferPool *pool = gl_tensor_pool_new(context);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, guint(size), min, max);
  // A consumer that waits on GstGLSyncMeta (one on another context) gets a
  // fence in every tensor: its GPU waits for ours, no CPU does.
  if (gst_query_find_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, nullptr))
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Cannot configure the GL tensor pool"),
                      (nullptr));
    return FALSE;
  }
  GST_INFO_OBJECT(element, "tensors of %" G_GSIZE_FORMAT " bytes as GL buffers", size);
  if (offered)
    gst_query_set_nth_allocation_pool(query, 0, pool, guint(size), min, max);
  else
    gst_query_add_allocation_pool(query, pool, guint(size), min, max);
  gst_object_unref(pool);
  return TRUE;
}

}  // namespace ef::gst
