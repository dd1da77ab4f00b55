/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* VkImages in GStreamer buffers, for efvkbridge and the applications around
 * it. The image itself is ef's borrowed VkImage wrapper (ef/ef.h):
 * nothing here creates or destroys Vulkan objects; the wrapper's keep-alive
 * (an EfClientState) keeps the producer's objects alive while any buffer,
 * memory or meta still refers to them.
 *
 * - GstEfVkImageMemory: a GstMemory that is a VkImage of an application's
 *   ring (out of Vulkan, through appsrc). Not mappable: its bytes live on the
 *   GPU.
 * - GstEfVkImageMeta: the VkImage a frame was imported into (into Vulkan,
 *   towards appsink), with its slot-release gate: the application arms it
 *   with gst_ef_vk_image_meta_release() once its GPU work on the frame has
 *   retired.
 * - The GstContext type "ef.vulkan.device": the VkInstance, VkPhysicalDevice,
 *   VkDevice and queue an application shares with the pipeline. */
#ifndef __GST_EF_VK_IMAGE_H__
#define __GST_EF_VK_IMAGE_H__

#include <ef/ef.h>
#include <gst/ef/gstefidentity.h>

G_BEGIN_DECLS

/* --- GstEfVkImageMemory -------------------------------------------------- */

#define GST_EF_VK_IMAGE_MEMORY_TYPE "EfVkImage"
/* Caps features: frames whose memories are application VkImages (into
 * efvkbridge, out of Vulkan), and frames that carry a GstEfVkImageMeta (out
 * of efvkbridge, into an application's Vulkan). */
#define GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE "memory:" GST_EF_VK_IMAGE_MEMORY_TYPE
#define GST_CAPS_FEATURE_META_EF_VK_IMAGE "meta:GstEfVkImageMeta"

/* A memory holding a copy of @image (sharing its keep-alive), of @size bytes
 * for GStreamer's bookkeeping (the image's bytes, e.g. row pitch x height;
 * at least 1). NULL if @image is NULL. */
GST_EF_API GstMemory *gst_ef_vk_image_memory_new(const EfVkImage *image, gsize size);
GST_EF_API gboolean gst_is_ef_vk_image_memory(GstMemory *mem);
/* The image (borrowed from the memory), or NULL for another memory. */
GST_EF_API const EfVkImage *gst_ef_vk_image_memory_get_image(GstMemory *mem);

/* --- GstEfVkImageMeta ---------------------------------------------------- */

#define GST_EF_VK_IMAGE_META_API_TYPE (gst_ef_vk_image_meta_api_get_type())
#define GST_EF_VK_IMAGE_META_INFO (gst_ef_vk_image_meta_get_info())

#define GST_EF_VK_IMAGE_META_MAX_PLANES 4

/* One image per plane: a single image for packed formats and GRAY8, two for
 * NV12 (Y as R8, interleaved UV as RG8, each stamped with its plane format),
 * bound to one memory. @image is @planes[0]. The gate is plane 0's. */
/* The images are imported external memory (a dma-buf) written outside this
 * queue family: before reading them, acquire them with an image barrier from
 * VK_QUEUE_FAMILY_FOREIGN_EXT (GENERAL to GENERAL). Unset for host-pointer
 * imports and for copies into the bridge's own images. */
#define GST_EF_VK_IMAGE_META_FLAG_FOREIGN (1u << 0)

typedef struct {
  GstMeta meta;
  EfVkImage *image; /* a copy owned by the meta; == planes[0] */
  guint n_planes;
  EfVkImage *planes[GST_EF_VK_IMAGE_META_MAX_PLANES];
  guint32 flags; /* GST_EF_VK_IMAGE_META_FLAG_* */
} GstEfVkImageMeta;

GST_EF_API GType gst_ef_vk_image_meta_api_get_type(void);
GST_EF_API const GstMetaInfo *gst_ef_vk_image_meta_get_info(void);
/* Attaches a copy of @image. Tagged "memory": kept on copies that share the
 * buffer's memories, dropped on deep copies. */
GST_EF_API GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta(GstBuffer *buffer,
                                                             const EfVkImage *image);
/* Attaches copies of @n_planes images (1..GST_EF_VK_IMAGE_META_MAX_PLANES). */
GST_EF_API GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta_planes(GstBuffer *buffer,
                                                                    const EfVkImage *const *planes,
                                                                    guint n_planes);
/* The same, taking ownership of the @planes wrappers instead of copying them
 * (an element that made them for this frame). */
GST_EF_API GstEfVkImageMeta *gst_buffer_take_ef_vk_image_meta_planes(GstBuffer *buffer,
                                                                     EfVkImage **planes,
                                                                     guint n_planes);
GST_EF_API GstEfVkImageMeta *gst_buffer_get_ef_vk_image_meta(GstBuffer *buffer);
/* Arms the image's slot-release gate: the producer may now reuse the slot.
 * FALSE (with the reason in ef_last_error()) when no gate was stamped. */
GST_EF_API gboolean gst_ef_vk_image_meta_release(GstEfVkImageMeta *meta);
/* Arms it on a waiter thread once @fence (a VkFence of @device) signals, or
 * once the timeline semaphore @semaphore reaches @value: submit the work that
 * reads the frame, hand its fence over, and drop the buffer. The fence or
 * semaphore must outlive the wait. FALSE (reason in ef_last_error()) when no
 * gate was stamped or a handle is NULL. */
GST_EF_API gboolean gst_ef_vk_image_meta_release_after_fence(GstEfVkImageMeta *meta,
                                                             gpointer device, guint64 fence);
GST_EF_API gboolean gst_ef_vk_image_meta_release_after_timeline(GstEfVkImageMeta *meta,
                                                                gpointer device, guint64 semaphore,
                                                                guint64 value);

/* --- The "ef.vulkan.device" GstContext ----------------------------------- */

#define GST_EF_VULKAN_DEVICE_CONTEXT_TYPE "ef.vulkan.device"

/* Handles as the application's Vulkan has them (VkInstance etc. are pointers
 * to dispatchable objects). */
/* Vulkan requires submissions to one VkQueue to be externally synchronised:
 * when the application submits to the shared queue from its own threads, it
 * passes a GMutex in @queue_lock and holds it around its own vkQueueSubmit
 * calls; efvkbridge holds it around each of its submits. NULL means the
 * bridge is the queue's only submitter while it runs. */
typedef struct {
  gpointer instance;
  gpointer physical_device;
  gpointer device;
  guint32 queue_family;
  guint32 queue_index;
  guint8 device_uuid[16]; /* VkPhysicalDeviceIDProperties::deviceUUID */
  GMutex *queue_lock;     /* optional, see above */
} GstEfVulkanDevice;

/* A persistent context carrying @device. NULL if any handle is NULL. */
GST_EF_API GstContext *gst_ef_vulkan_device_context_new(const GstEfVulkanDevice *device);
/* Reads @context back; FALSE for another context type or missing fields. */
GST_EF_API gboolean gst_ef_vulkan_device_context_get(GstContext *context,
                                                     GstEfVulkanDevice *device);

G_END_DECLS

#endif
