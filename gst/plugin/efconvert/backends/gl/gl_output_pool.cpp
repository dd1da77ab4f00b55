// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_output_pool.hpp"

#include "common/gl_pool.hpp"
#include "common/gst_ptr.hpp"
#include "efconvert/output/output_pool.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

gboolean decide_gl_output_pool(GstElement *element, GstGLContext *context, GstQuery *query,
                               GstCaps *caps, const GstVideoInfo &info) {
  GstBufferPool *pool = nullptr;
  guint size = guint(info.size), min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
  if (pool && !GST_IS_GL_BUFFER_POOL(pool)) {
    gst_object_unref(pool);
    pool = nullptr;
  }
  const bool own = pool == nullptr;
  if (own)
    pool = gst_gl_buffer_pool_new(context);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, MAX(size, guint(info.size)), min, max);
  keep_one_texture_free(config, own);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  // A consumer that waits on GstGLSyncMeta (one on another context) gets a
  // fence in every frame: its GPU waits for ours, no CPU does.
  if (gst_query_find_allocation_meta(query, GST_GL_SYNC_META_API_TYPE, nullptr))
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_GL_SYNC_META);
  ObjectPtr<GstGLMemoryAllocator> allocator(gst_gl_memory_allocator_get_default(context));
  gst_buffer_pool_config_set_allocator(config, GST_ALLOCATOR(allocator.get()), nullptr);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Cannot configure the GL output pool"),
                      (nullptr));
    return FALSE;
  }
  return answer_pool(query, offered, pool, size, min, max);
}

}  // namespace ef::gst
