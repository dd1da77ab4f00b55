// SPDX-License-Identifier: LGPL-2.1-or-later
#include "shell_pool.hpp"

#include "common/output_metas.hpp"

using ef::gst::release_pooled_parent;

struct _GstEfShellPool {
  GstBufferPool parent;
  guint64 allocated;  // __atomic builtins: alloc runs on any thread
};

G_DEFINE_TYPE(GstEfShellPool, gst_ef_shell_pool, GST_TYPE_BUFFER_POOL)

static GstFlowReturn shell_pool_alloc_buffer(GstBufferPool *pool, GstBuffer **buffer,
                                             GstBufferPoolAcquireParams *) {
  *buffer = gst_buffer_new();
  __atomic_add_fetch(&GST_EF_SHELL_POOL(pool)->allocated, 1, __ATOMIC_RELAXED);
  return GST_FLOW_OK;
}

static void shell_pool_reset_buffer(GstBufferPool *pool, GstBuffer *buffer) {
  GST_BUFFER_POOL_CLASS(gst_ef_shell_pool_parent_class)->reset_buffer(pool, buffer);
  // Drop the memories the shell carried: they belong to the cache, not the pool.
  gst_buffer_remove_all_memory(buffer);
  release_pooled_parent(buffer);
  GST_MINI_OBJECT_FLAG_UNSET(buffer, GST_BUFFER_FLAG_TAG_MEMORY);
}

static void gst_ef_shell_pool_class_init(GstEfShellPoolClass *klass) {
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS(klass);
  pool_class->alloc_buffer = shell_pool_alloc_buffer;
  pool_class->reset_buffer = shell_pool_reset_buffer;
}

static void gst_ef_shell_pool_init(GstEfShellPool *) {}

GstBufferPool *gst_ef_shell_pool_new(void) {
  GstBufferPool *pool = GST_BUFFER_POOL(g_object_new(GST_TYPE_EF_SHELL_POOL, nullptr));
  gst_object_ref_sink(pool);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  GstCaps *caps = gst_caps_new_empty_simple("video/x-raw");
  gst_buffer_pool_config_set_params(config, caps, 0, 0, 0);
  gst_caps_unref(caps);
  gst_buffer_pool_set_config(pool, config);
  return pool;
}

guint64 gst_ef_shell_pool_get_allocated(GstEfShellPool *pool) {
  return __atomic_load_n(&pool->allocated, __ATOMIC_RELAXED);
}
