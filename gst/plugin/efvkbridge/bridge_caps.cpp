// SPDX-License-Identifier: LGPL-2.1-or-later
#include "bridge_caps.hpp"

#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>

#include "common/gst_ptr.hpp"

namespace ef::gst {

// Each plane is imported as a LINEAR image (no VK_EXT_image_drm_format_modifier
// path), and memfds out are LINEAR.
const DrmSupport &drm_linear() {
  static const DrmSupport support(EF_VK_FORMATS);
  return support;
}

bool has_feature(GstCapsFeatures *f, const char *feature) {
  return f && gst_caps_features_contains(f, feature);
}

// Sink caps -> src caps: VkImages come out as fd-backed or system frames;
// other frames go on as they are, carrying the images' meta.
// Src caps -> sink caps: the reverse.
GstCaps *bridge_transform_caps(GstCaps *caps, GstPadDirection direction) {
  GstCaps *out = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    const GstStructure *st = gst_caps_get_structure(caps, i);
    auto append = [&](GstCapsFeatures *features) {
      gst_caps_append_structure_full(out, gst_structure_copy(st), features);
    };
    // dma-buf structures in this GStreamer version's form, in the layouts
    // the bridge imports or makes.
    auto append_dmabuf = [&](GstCapsFeatures *features, bool with_legacy) {
      gst_caps_append(out, dmabuf_caps_of(st, features, drm_linear(), with_legacy));
    };
    if (direction == GST_PAD_SINK) {
      if (has_feature(f, GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE)) {
        append_dmabuf(gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_DMABUF, nullptr), false);
        append(gst_caps_features_new_empty());
      } else {
        GstCapsFeatures *with = f ? gst_caps_features_copy(f) : gst_caps_features_new_empty();
        if (gst_caps_features_is_any(with)) {
          gst_caps_features_free(with);
          with = gst_caps_features_new_empty();
        }
        gst_caps_features_remove(with, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
        gst_caps_features_add(with, GST_CAPS_FEATURE_META_EF_VK_IMAGE);
        if (has_feature(with, GST_CAPS_FEATURE_MEMORY_DMABUF) && is_dma_drm_structure(st))
          append_dmabuf(with, false);
        else
          append(with);
      }
    } else {
      if (has_feature(f, GST_CAPS_FEATURE_META_EF_VK_IMAGE)) {
        GstCapsFeatures *without = gst_caps_features_copy(f);
        gst_caps_features_remove(without, GST_CAPS_FEATURE_META_EF_VK_IMAGE);
        if (gst_caps_features_get_size(without) == 0)
          gst_caps_features_add(without, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
        if (has_feature(without, GST_CAPS_FEATURE_MEMORY_DMABUF))
          append_dmabuf(without, true);
        else
          append(without);
      } else if (GstStructure *plain = plain_structure_of(st, drm_linear())) {
        gst_caps_append_structure_full(
            out, plain, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE, nullptr));
      }
    }
  }
  return out;
}

// The largest image side of the device: VkImages on both sides of the bridge.
SizeLimit vk_size_limit(const vk::Device &device) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device.physical_device(), &props);
  const uint32_t side = props.limits.maxImageDimension2D;
  return {side > 0 && side < uint32_t(G_MAXINT) ? gint(side) : G_MAXINT,
          "this Vulkan device's maxImageDimension2D"};
}

// Host-pointer imports take whole pages only.
constexpr guint kPage = 4096;

GstBufferPool *fd_pool(GstCaps *caps, gsize size, guint min, guint max) {
  if (size > G_MAXUINT - kPage)
    return nullptr;  // a pool's sizes are guint
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, (size + kPage - 1) / kPage * kPage, min, max);
  ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
  gst_buffer_pool_config_set_allocator(config, allocator.get(), nullptr);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    return nullptr;
  }
  return pool;
}

}  // namespace ef::gst
