// SPDX-License-Identifier: LGPL-2.1-or-later
#include "output_pool.hpp"

#include <gst/ef/gstef.h>

#include "common/gst_ptr.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug
GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);

namespace ef::gst {

namespace {

// A pool of system memory that nothing but its memory's CPU address
// matters to: GstBufferPool or GstVideoBufferPool itself, with the default
// allocator.
bool plain_system_pool(GstBufferPool *pool) {
  const GType type = G_OBJECT_TYPE(pool);
  if (type != GST_TYPE_BUFFER_POOL && type != GST_TYPE_VIDEO_BUFFER_POOL)
    return false;
  GstStructure *config = gst_buffer_pool_get_config(pool);
  GstAllocator *allocator = nullptr;
  gst_buffer_pool_config_get_allocator(config, &allocator, nullptr);
  const bool sysmem = !allocator || g_strcmp0(allocator->mem_type, GST_ALLOCATOR_SYSMEM) == 0;
  gst_structure_free(config);
  return sysmem;
}

// Tensors start on a cache line: the CPU backend's float32 stores stream
// only from 32-byte addresses (it peels what lies before one), and
// GStreamer's system memory is aligned to 8 unless asked.
constexpr gsize kTensorAlign = 63;

// The config's allocator, or `own`, with its parameters asking for a
// cache line at least.
void align_tensors(GstStructure *config, GstAllocator *own) {
  GstAllocator *allocator = nullptr;
  GstAllocationParams params;
  gst_buffer_pool_config_get_allocator(config, &allocator, &params);
  params.align = MAX(params.align, kTensorAlign);
  gst_buffer_pool_config_set_allocator(config, own ? own : allocator, &params);
}

}  // namespace

gboolean decide_output_pool(GstElement *element, GstQuery *query, GstCaps *caps,
                            const VideoCaps &parsed, guint held, GstAllocator *preferred) {
  const GstVideoInfo &info = parsed.info;
  GstBufferPool *pool = nullptr;
  guint size = guint(info.size), min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
  if (pool && preferred && plain_system_pool(pool)) {
    GST_INFO_OBJECT(element, "downstream's system-memory pool replaced by our own");
    gst_clear_object(&pool);
  }
  min += held;
  if (max != 0)
    max += held;
  const bool own = pool == nullptr;
  if (own)
    pool = gst_video_buffer_pool_new();
  size = MAX(size, guint(info.size));
  CapsPtr layout(pool_caps(caps, parsed));
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, layout.get(), size, min, max);
  if (own && preferred) {
    gst_buffer_pool_config_set_allocator(config, preferred, nullptr);
    GST_INFO_OBJECT(element, "own output pool of %s memory", preferred->mem_type);
  } else if (own) {
    ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
    gst_buffer_pool_config_set_allocator(config, allocator.get(), nullptr);
    GST_INFO_OBJECT(element, "own output pool of %s buffers",
                    gst_ef_fd_allocator_get_source(GST_EF_FD_ALLOCATOR(allocator.get())));
  }
  if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    // A pool may adjust the config; take its word if it still fits.
    config = gst_buffer_pool_get_config(pool);
    if (!gst_buffer_pool_config_validate_params(config, layout.get(), size, min, max) ||
        !gst_buffer_pool_set_config(pool, config)) {
      gst_object_unref(pool);
      GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Cannot configure the output pool"),
                        (nullptr));
      return FALSE;
    }
  }
  return answer_pool(query, offered, pool, size, min, max);
}

gboolean decide_tensor_pool(GstElement *element, GstQuery *query, GstCaps *caps, gsize size,
                            guint held, GstAllocator *preferred) {
  GstBufferPool *pool = nullptr;
  guint offered_size = 0, min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &offered_size, &min, &max);
  if (pool && preferred && plain_system_pool(pool)) {
    GST_INFO_OBJECT(element, "downstream's system-memory pool replaced by our own");
    gst_clear_object(&pool);
  }
  min = MAX(min, 2u) + held;
  if (max != 0)
    max = MAX(max, min);
  for (bool own : {false, true}) {
    if (own) {
      gst_clear_object(&pool);
      pool = gst_buffer_pool_new();
    } else if (!pool) {
      continue;
    }
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(size), min, max);
    ObjectPtr<GstAllocator> allocator;
    if (own)
      allocator.reset(preferred ? GST_ALLOCATOR(gst_object_ref(preferred))
                                : gst_ef_fd_allocator_new());
    align_tensors(config, allocator.get());
    if (gst_buffer_pool_set_config(pool, config)) {
      GST_INFO_OBJECT(element, "tensors of %" G_GSIZE_FORMAT " bytes from %s pool", size,
                      own ? "our own" : "downstream's");
      return answer_pool(query, offered, pool, guint(size), min, max);
    }
  }
  gst_object_unref(pool);
  GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Cannot configure the tensor pool"), (nullptr));
  return FALSE;
}

gboolean answer_pool(GstQuery *query, bool offered, GstBufferPool *pool, guint size, guint min,
                     guint max) {
  if (offered)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool(query, pool, size, min, max);
  gst_object_unref(pool);
  return TRUE;
}

GstBufferPool *make_tensor_pool(GstElement *element, gsize size) {
  GstBufferPool *pool = gst_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, nullptr, guint(size), 2, 0);
  ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
  align_tensors(config, allocator.get());
  if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
    gst_object_unref(pool);
    GST_ELEMENT_ERROR(element, RESOURCE, SETTINGS, ("Cannot make the tensor pool"), (nullptr));
    return nullptr;
  }
  return pool;
}

}  // namespace ef::gst
