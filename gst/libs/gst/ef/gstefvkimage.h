/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_VK_IMAGE_H__
#define __GST_EF_VK_IMAGE_H__

#include <ef/ef.h>
#include <gst/ef/gstefidentity.h>

G_BEGIN_DECLS

/**
 * SECTION:gstefvkimage
 * @title: GstEfVkImageMemory, GstEfVkImageMeta
 * @short_description: VkImages in GStreamer buffers, for efvkbridge
 *
 * The image itself is ef's borrowed VkImage wrapper (#EfVkImage, ef/ef.h):
 * nothing here creates or destroys Vulkan objects; the wrapper's keep-alive
 * (an EfClientState) keeps the producer's objects alive while any buffer,
 * memory or meta still refers to them.
 *
 * - #GstEfVkImageMemory: a #GstMemory that is a VkImage of an application's
 *   ring (out of Vulkan, through appsrc). Not mappable: its bytes live on the
 *   GPU.
 * - #GstEfVkImageMeta: the VkImage a frame was imported into (into Vulkan,
 *   towards appsink), with its slot-release gate: the application arms it
 *   with gst_ef_vk_image_meta_release() once its GPU work on the frame has
 *   retired.
 * - The #GstContext type "ef.vulkan.device": the VkInstance,
 *   VkPhysicalDevice, VkDevice and queue an application shares with the
 *   pipeline.
 *
 * These take C ABI structs and raw Vulkan handles, so they are C and C++
 * API: the introspection data leaves them out.
 */

/* --- GstEfVkImageMemory -------------------------------------------------- */

#define GST_EF_VK_IMAGE_MEMORY_TYPE "EfVkImage"
/* Caps features: frames whose memories are application VkImages (into
 * efvkbridge, out of Vulkan), and frames that carry a GstEfVkImageMeta (out
 * of efvkbridge, into an application's Vulkan). */
#define GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE "memory:" GST_EF_VK_IMAGE_MEMORY_TYPE
#define GST_CAPS_FEATURE_META_EF_VK_IMAGE "meta:GstEfVkImageMeta"

/**
 * gst_ef_vk_image_memory_new: (skip)
 * @image: (transfer none): the image; the memory holds a copy sharing its keep-alive
 * @size: bytes for GStreamer's bookkeeping (the image's bytes, e.g. row pitch
 *   x height; at least 1)
 *
 * Returns: (transfer full) (nullable): a new unmappable memory, %NULL if
 *   @image is %NULL
 *
 * Since: 0.1
 */
GST_EF_API GstMemory *gst_ef_vk_image_memory_new(const EfVkImage *image, gsize size);

/**
 * gst_is_ef_vk_image_memory: (skip)
 * @mem: a #GstMemory
 *
 * Returns: whether @mem is a #GstEfVkImageMemory
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_is_ef_vk_image_memory(GstMemory *mem);

/**
 * gst_ef_vk_image_memory_get_image: (skip)
 * @mem: a #GstMemory
 *
 * Returns: (transfer none) (nullable): the image, borrowed from the memory,
 *   or %NULL for another kind of memory
 *
 * Since: 0.1
 */
GST_EF_API const EfVkImage *gst_ef_vk_image_memory_get_image(GstMemory *mem);

/* --- GstEfVkImageMeta ---------------------------------------------------- */

#define GST_EF_VK_IMAGE_META_API_TYPE (gst_ef_vk_image_meta_api_get_type())
#define GST_EF_VK_IMAGE_META_INFO (gst_ef_vk_image_meta_get_info())

#define GST_EF_VK_IMAGE_META_MAX_PLANES 4

/**
 * GST_EF_VK_IMAGE_META_FLAG_FOREIGN:
 *
 * The images are imported external memory (a dma-buf) written outside this
 * queue family: before reading them, acquire them with an image barrier from
 * VK_QUEUE_FAMILY_FOREIGN_EXT (GENERAL to GENERAL). Unset for host-pointer
 * imports and for copies into the bridge's own images.
 */
#define GST_EF_VK_IMAGE_META_FLAG_FOREIGN (1u << 0)

/**
 * GstEfVkImageMeta:
 * @meta: the parent #GstMeta
 * @image: a copy owned by the meta; the same as @planes[0]
 * @n_planes: how many of @planes are set
 * @planes: one image per plane: a single image for packed formats and GRAY8,
 *   two for NV12 (Y as R8, interleaved UV as RG8, each stamped with its plane
 *   format), bound to one memory. The gate is plane 0's.
 * @flags: GST_EF_VK_IMAGE_META_FLAG_* values
 *
 * Since: 0.1
 */
typedef struct {
  GstMeta meta;
  EfVkImage *image;
  guint n_planes;
  EfVkImage *planes[GST_EF_VK_IMAGE_META_MAX_PLANES];
  guint32 flags;
} GstEfVkImageMeta;

/**
 * gst_ef_vk_image_meta_api_get_type:
 *
 * Returns: the #GType of the meta's API
 *
 * Since: 0.1
 */
GST_EF_API GType gst_ef_vk_image_meta_api_get_type(void);

/**
 * gst_ef_vk_image_meta_get_info: (skip)
 *
 * Returns: the registered #GstMetaInfo
 *
 * Since: 0.1
 */
GST_EF_API const GstMetaInfo *gst_ef_vk_image_meta_get_info(void);

/**
 * gst_buffer_add_ef_vk_image_meta: (skip)
 * @buffer: a writable #GstBuffer
 * @image: (transfer none): the image; the meta keeps a copy
 *
 * Tagged "memory": kept on copies that share the buffer's memories, dropped
 * on deep copies.
 *
 * Returns: (transfer none) (nullable): the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta(GstBuffer *buffer,
                                                             const EfVkImage *image);

/**
 * gst_buffer_add_ef_vk_image_meta_planes: (skip)
 * @buffer: a writable #GstBuffer
 * @planes: (array length=n_planes) (transfer none): the images, copied
 * @n_planes: 1 to %GST_EF_VK_IMAGE_META_MAX_PLANES
 *
 * Returns: (transfer none) (nullable): the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfVkImageMeta *gst_buffer_add_ef_vk_image_meta_planes(GstBuffer *buffer,
                                                                    const EfVkImage *const *planes,
                                                                    guint n_planes);

/**
 * gst_buffer_take_ef_vk_image_meta_planes: (skip)
 * @buffer: a writable #GstBuffer
 * @planes: (array length=n_planes) (transfer full): the images, owned by the
 *   meta from now on (an element that made them for this frame)
 * @n_planes: 1 to %GST_EF_VK_IMAGE_META_MAX_PLANES
 *
 * Returns: (transfer none) (nullable): the meta
 *
 * Since: 0.1
 */
GST_EF_API GstEfVkImageMeta *gst_buffer_take_ef_vk_image_meta_planes(GstBuffer *buffer,
                                                                     EfVkImage **planes,
                                                                     guint n_planes);

/**
 * gst_buffer_get_ef_vk_image_meta: (skip)
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the buffer's #GstEfVkImageMeta
 *
 * Since: 0.1
 */
GST_EF_API GstEfVkImageMeta *gst_buffer_get_ef_vk_image_meta(GstBuffer *buffer);

/**
 * gst_ef_vk_image_meta_release: (skip)
 * @meta: a #GstEfVkImageMeta
 *
 * Arms the image's slot-release gate: the producer may now reuse the slot.
 *
 * Returns: %FALSE (with the reason in ef_last_error()) when no gate was
 *   stamped
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_vk_image_meta_release(GstEfVkImageMeta *meta);

/**
 * gst_ef_vk_image_meta_release_after_fence: (skip)
 * @meta: a #GstEfVkImageMeta
 * @device: the VkDevice of @fence
 * @fence: a VkFence that signals when the work reading the frame retired
 *
 * Arms the gate on a waiter thread once @fence signals: submit the work
 * that reads the frame, hand its fence over, and drop the buffer. The fence
 * must outlive the wait.
 *
 * Returns: %FALSE (reason in ef_last_error()) when no gate was stamped or a
 *   handle is NULL
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_vk_image_meta_release_after_fence(GstEfVkImageMeta *meta,
                                                             gpointer device, guint64 fence);

/**
 * gst_ef_vk_image_meta_release_after_timeline: (skip)
 * @meta: a #GstEfVkImageMeta
 * @device: the VkDevice of @semaphore
 * @semaphore: a timeline VkSemaphore
 * @value: the value at which the work reading the frame has retired
 *
 * Arms the gate on a waiter thread once @semaphore reaches @value. The
 * semaphore must outlive the wait.
 *
 * Returns: %FALSE (reason in ef_last_error()) when no gate was stamped or a
 *   handle is NULL
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_vk_image_meta_release_after_timeline(GstEfVkImageMeta *meta,
                                                                gpointer device, guint64 semaphore,
                                                                guint64 value);

/* --- The "ef.vulkan.device" GstContext ----------------------------------- */

#define GST_EF_VULKAN_DEVICE_CONTEXT_TYPE "ef.vulkan.device"

/**
 * GstEfVulkanDevice:
 * @instance: the VkInstance (handles as the application's Vulkan has them)
 * @physical_device: the VkPhysicalDevice
 * @device: the VkDevice
 * @queue_family: the family of the shared queue
 * @queue_index: the index of the shared queue in its family
 * @device_uuid: VkPhysicalDeviceIDProperties::deviceUUID
 * @queue_lock: (nullable): Vulkan requires submissions to one VkQueue to be
 *   externally synchronised: when the application submits to the shared
 *   queue from its own threads, it passes a GMutex here and holds it around
 *   its own vkQueueSubmit calls; efvkbridge holds it around each of its
 *   submits. %NULL means the bridge is the queue's only submitter while it
 *   runs.
 *
 * Since: 0.1
 */
typedef struct {
  gpointer instance;
  gpointer physical_device;
  gpointer device;
  guint32 queue_family;
  guint32 queue_index;
  guint8 device_uuid[16];
  GMutex *queue_lock;
} GstEfVulkanDevice;

/**
 * gst_ef_vulkan_device_context_new: (skip)
 * @device: the device to share
 *
 * Returns: (transfer full) (nullable): a persistent context of type
 *   %GST_EF_VULKAN_DEVICE_CONTEXT_TYPE carrying @device, %NULL if any handle
 *   is %NULL
 *
 * Since: 0.1
 */
GST_EF_API GstContext *gst_ef_vulkan_device_context_new(const GstEfVulkanDevice *device);

/**
 * gst_ef_vulkan_device_context_get: (skip)
 * @context: a #GstContext
 * @device: (out caller-allocates): the device it carries
 *
 * Returns: %FALSE for another context type or missing fields
 *
 * Since: 0.1
 */
GST_EF_API gboolean gst_ef_vulkan_device_context_get(GstContext *context,
                                                     GstEfVulkanDevice *device);

G_END_DECLS

#endif
