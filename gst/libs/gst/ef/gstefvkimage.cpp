// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gstefvkimage.h"

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <iterator>

#include "memory_copy.hpp"

namespace {

// --- GstEfVkImageMemory ----------------------------------------------------

struct VkImageMemory {
  GstMemory mem;
  EfVkImage *image;
};

GstMemory *vk_image_memory_wrap(GstAllocator *allocator, EfVkImage *image, gsize size,
                                GstMemory *parent) {
  auto *m = g_new0(VkImageMemory, 1);
  gst_memory_init(&m->mem, GstMemoryFlags(GST_MEMORY_FLAG_NOT_MAPPABLE), allocator, parent, size, 0,
                  0, size);
  m->image = image;
  return &m->mem;
}

gpointer vk_image_mem_map(GstMemory *, gsize, GstMapFlags) {
  return nullptr;
}
void vk_image_mem_unmap(GstMemory *) {}

// A share names the same image: a copy of the wrapper, same keep-alive.
GstMemory *vk_image_mem_share(GstMemory *mem, gssize, gssize) {
  auto *m = reinterpret_cast<VkImageMemory *>(mem);
  EfVkImage *copy = nullptr;
  if (ef_vk_image_copy(m->image, &copy) != 0)
    return nullptr;
  return vk_image_memory_wrap(mem->allocator, copy, mem->size, mem->parent ? mem->parent : mem);
}

void vk_image_mem_free(GstAllocator *, GstMemory *mem) {
  auto *m = reinterpret_cast<VkImageMemory *>(mem);
  ef_vk_image_free(m->image);  // releases the keep-alive once the last copy goes
  g_free(m);
}

struct GstEfVkImageAllocator {
  GstAllocator parent;
};
struct GstEfVkImageAllocatorClass {
  GstAllocatorClass parent_class;
};

GType gst_ef_vk_image_allocator_get_type();
G_DEFINE_TYPE(GstEfVkImageAllocator, gst_ef_vk_image_allocator, GST_TYPE_ALLOCATOR)

void gst_ef_vk_image_allocator_class_init(GstEfVkImageAllocatorClass *klass) {
  // Not a source of memory: images come from the application.
  GST_ALLOCATOR_CLASS(klass)->alloc = nullptr;
  GST_ALLOCATOR_CLASS(klass)->free = vk_image_mem_free;
}

void gst_ef_vk_image_allocator_init(GstEfVkImageAllocator *self) {
  GstAllocator *a = GST_ALLOCATOR(self);
  a->mem_type = GST_EF_VK_IMAGE_MEMORY_TYPE;
  a->mem_map = vk_image_mem_map;
  a->mem_unmap = vk_image_mem_unmap;
  a->mem_share = vk_image_mem_share;
  GST_OBJECT_FLAG_SET(self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *vk_image_allocator() {
  static GstAllocator *allocator = nullptr;
  if (g_once_init_enter(&allocator)) {
    auto *a = GST_ALLOCATOR(g_object_new(gst_ef_vk_image_allocator_get_type(), nullptr));
    gst_object_ref_sink(a);
    GST_OBJECT_FLAG_SET(a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    // Registered under its memory type, so gst_allocator_find() names it
    // like GStreamer's own allocators (the registry keeps its own ref).
    gst_allocator_register(GST_EF_VK_IMAGE_MEMORY_TYPE, GST_ALLOCATOR(gst_object_ref(a)));
    g_once_init_leave(&allocator, a);
  }
  return allocator;
}

// --- GstEfVkImageMeta ------------------------------------------------------

gboolean vk_meta_init(GstMeta *meta, gpointer, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfVkImageMeta *>(meta);
  m->image = nullptr;
  m->n_planes = 0;
  m->flags = 0;
  std::fill(std::begin(m->planes), std::end(m->planes), nullptr);
  return TRUE;
}

void vk_meta_free(GstMeta *meta, GstBuffer *) {
  auto *m = reinterpret_cast<GstEfVkImageMeta *>(meta);
  for (guint i = 0; i < m->n_planes; ++i)
    ef_vk_image_free(m->planes[i]);
  m->image = nullptr;
  m->n_planes = 0;
}

gboolean vk_meta_transform(GstBuffer *dest, GstMeta *meta, GstBuffer *src, GQuark type,
                           gpointer data) {
  if (!GST_META_TRANSFORM_IS_COPY(type) || !ef::gst::copy_shares_memories(dest, src, data))
    return TRUE;  // the image holds the frame's bytes, not another copy's
  auto *m = reinterpret_cast<GstEfVkImageMeta *>(meta);
  GstEfVkImageMeta *copy = gst_buffer_add_ef_vk_image_meta_planes(dest, m->planes, m->n_planes);
  if (copy)
    copy->flags = m->flags;
  return copy != nullptr;
}

}  // namespace

GstMemory *gst_ef_vk_image_memory_new(const EfVkImage *image, gsize size) {
  g_return_val_if_fail(image != nullptr, nullptr);
  EfVkImage *copy = nullptr;
  if (ef_vk_image_copy(image, &copy) != 0)
    return nullptr;
  return vk_image_memory_wrap(vk_image_allocator(), copy, MAX(size, 1), nullptr);
}

gboolean gst_is_ef_vk_image_memory(GstMemory *mem) {
  return mem && gst_memory_is_type(mem, GST_EF_VK_IMAGE_MEMORY_TYPE);
}

const EfVkImage *gst_ef_vk_image_memory_get_image(GstMemory *mem) {
  if (!gst_is_ef_vk_image_memory(mem))
    return nullptr;
  return reinterpret_cast<VkImageMemory *>(mem)->image;
}

GType gst_ef_vk_image_meta_api_get_type(void) {
  static GType type = 0;
  static const gchar *tags[] = {GST_META_TAG_MEMORY_STR, nullptr};
  if (g_once_init_enter(&type)) {
    GType t = gst_meta_api_type_register("GstEfVkImageMetaAPI", tags);
    g_once_init_leave(&type, t);
  }
  return type;
}

const GstMetaInfo *gst_ef_vk_image_meta_get_info(void) {
  static const GstMetaInfo *info = nullptr;
  if (g_once_init_enter(&info)) {
    const GstMetaInfo *i =
        gst_meta_register(GST_EF_VK_IMAGE_META_API_TYPE, "GstEfVkImageMeta",
                          sizeof(GstEfVkImageMeta), vk_meta_init, vk_meta_free, vk_meta_transform);
    g_once_init_leave(&info, i);
  }
  return info;
}

GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta(GstBuffer *buffer, const EfVkImage *image) {
  return gst_buffer_add_ef_vk_image_meta_planes(buffer, &image, 1);
}

GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta_planes(GstBuffer *buffer,
                                                         const EfVkImage *const *planes,
                                                         guint n_planes) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  g_return_val_if_fail(planes != nullptr, nullptr);
  g_return_val_if_fail(n_planes >= 1 && n_planes <= GST_EF_VK_IMAGE_META_MAX_PLANES, nullptr);
  EfVkImage *copies[GST_EF_VK_IMAGE_META_MAX_PLANES] = {};
  for (guint i = 0; i < n_planes; ++i) {
    if (!planes[i] || ef_vk_image_copy(planes[i], &copies[i]) != 0) {
      for (guint j = 0; j < i; ++j)
        ef_vk_image_free(copies[j]);
      return nullptr;
    }
  }
  return gst_buffer_take_ef_vk_image_meta_planes(buffer, copies, n_planes);
}

GstEfVkImageMeta *gst_buffer_take_ef_vk_image_meta_planes(GstBuffer *buffer, EfVkImage **planes,
                                                          guint n_planes) {
  g_return_val_if_fail(GST_IS_BUFFER(buffer), nullptr);
  g_return_val_if_fail(planes != nullptr, nullptr);
  g_return_val_if_fail(n_planes >= 1 && n_planes <= GST_EF_VK_IMAGE_META_MAX_PLANES, nullptr);
  auto *m = reinterpret_cast<GstEfVkImageMeta *>(
      gst_buffer_add_meta(buffer, GST_EF_VK_IMAGE_META_INFO, nullptr));
  m->n_planes = n_planes;
  std::copy_n(planes, n_planes, m->planes);
  m->image = m->planes[0];
  return m;
}

GstEfVkImageMeta *gst_buffer_get_ef_vk_image_meta(GstBuffer *buffer) {
  return reinterpret_cast<GstEfVkImageMeta *>(
      gst_buffer_get_meta(buffer, GST_EF_VK_IMAGE_META_API_TYPE));
}

gboolean gst_ef_vk_image_meta_release(GstEfVkImageMeta *meta) {
  g_return_val_if_fail(meta != nullptr, FALSE);
  return ef_vk_image_release_slot(meta->image) == 0;
}

gboolean gst_ef_vk_image_meta_release_after_fence(GstEfVkImageMeta *meta, gpointer device,
                                                  guint64 fence) {
  g_return_val_if_fail(meta != nullptr, FALSE);
  return ef_vk_image_release_after_fence(meta->image, device, fence) == 0;
}

gboolean gst_ef_vk_image_meta_release_after_timeline(GstEfVkImageMeta *meta, gpointer device,
                                                     guint64 semaphore, guint64 value) {
  g_return_val_if_fail(meta != nullptr, FALSE);
  return ef_vk_image_release_after_timeline(meta->image, device, semaphore, value) == 0;
}

GstContext *gst_ef_vulkan_device_context_new(const GstEfVulkanDevice *device) {
  g_return_val_if_fail(device != nullptr, nullptr);
  if (!device->instance || !device->physical_device || !device->device)
    return nullptr;
  char uuid[33];
  for (int i = 0; i < 16; ++i)
    std::snprintf(uuid + 2 * i, 3, "%02x", device->device_uuid[i]);
  GstContext *context = gst_context_new(GST_EF_VULKAN_DEVICE_CONTEXT_TYPE, TRUE);
  gst_structure_set(gst_context_writable_structure(context), "instance", G_TYPE_POINTER,
                    device->instance, "physical-device", G_TYPE_POINTER, device->physical_device,
                    "device", G_TYPE_POINTER, device->device, "queue-family", G_TYPE_UINT,
                    device->queue_family, "queue-index", G_TYPE_UINT, device->queue_index,
                    "device-uuid", G_TYPE_STRING, uuid, "queue-lock", G_TYPE_POINTER,
                    device->queue_lock, nullptr);
  return context;
}

gboolean gst_ef_vulkan_device_context_get(GstContext *context, GstEfVulkanDevice *device) {
  g_return_val_if_fail(context != nullptr && device != nullptr, FALSE);
  if (!gst_context_has_context_type(context, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE))
    return FALSE;
  const GstStructure *s = gst_context_get_structure(context);
  GstEfVulkanDevice d{};
  const gchar *uuid = gst_structure_get_string(s, "device-uuid");
  if (!gst_structure_get(s, "instance", G_TYPE_POINTER, &d.instance, "physical-device",
                         G_TYPE_POINTER, &d.physical_device, "device", G_TYPE_POINTER, &d.device,
                         "queue-family", G_TYPE_UINT, &d.queue_family, "queue-index", G_TYPE_UINT,
                         &d.queue_index, nullptr) ||
      !uuid || std::strlen(uuid) != 32 || !d.instance || !d.physical_device || !d.device)
    return FALSE;
  for (int i = 0; i < 16; ++i) {
    unsigned byte;
    if (std::sscanf(uuid + 2 * i, "%2x", &byte) != 1)
      return FALSE;
    d.device_uuid[i] = guint8(byte);
  }
  gst_structure_get(s, "queue-lock", G_TYPE_POINTER, &d.queue_lock, nullptr);  // optional
  *device = d;
  return TRUE;
}
