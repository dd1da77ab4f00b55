// SPDX-License-Identifier: LGPL-2.1-or-later
// Out of Vulkan: an application's VkImages (GstEfVkImageMemory, one per
// plane) copied by the GPU into fd-backed frames for the rest of the
// pipeline. Each image's slot-release gate is armed only once that copy has
// retired, so the producer can rewrite the slot at once and never earlier.
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>

#include <cstring>

#include "bridge_state.hpp"
#include "common/buffer_source.hpp"
#include "common/frame_layout.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

namespace ef::gst {

namespace {

// Checks one plane's image against the bridge's device and the caps: the
// application's mistakes are errors on the bus, never a copy from a foreign
// or misdescribed image.
Result<const VkImage *> plane_image(const BridgeState &s, GstBuffer *in, guint p) {
  GstMemory *mem = gst_buffer_peek_memory(in, p);
  const VkImage *image = vk_image_from_c(gst_ef_vk_image_memory_get_image(mem));
  const std::string plane = "plane " + std::to_string(p) + ": ";
  if (!image)
    return Error{EINVAL, plane + "memory is not a GstEfVkImageMemory"};
  if (image->image() == 0)
    return Error{EINVAL, plane + "null VkImage handle"};
  const vk::Device &device = *s.device;
  if (image->uuid() && *image->uuid() != device.uuid())
    return Error{EINVAL, plane + "the VkImage's device uuid is not the bridge's device (\"" +
                             device.name() + "\")"};
  if (image->device() && image->device() != static_cast<void *>(device.device()))
    return Error{EINVAL, plane + "the VkImage belongs to another VkDevice"};
  const VkExtent2D extent = vk::plane_extent(s.in_info, p);
  if ((image->width() || image->height()) &&
      (image->width() != extent.width || image->height() != extent.height))
    return Error{EINVAL, plane + "the VkImage is " + std::to_string(image->width()) + "x" +
                             std::to_string(image->height()) + ", the caps say " +
                             std::to_string(extent.width) + "x" + std::to_string(extent.height)};
  if (image->format() && *image->format() != s.format->pixel_format)
    return Error{EINVAL, plane + "the VkImage's pixel format is not the caps' format"};
  const uint32_t row = extent.width * s.format->planes[p].bytes_per_texel;
  if (image->row_pitch() != 0 && image->row_pitch() < row)
    return Error{EINVAL, plane + "row pitch " + std::to_string(image->row_pitch()) +
                             " is smaller than a row of " + std::to_string(extent.width) +
                             " texels (" + std::to_string(row) + " bytes)"};
  return image;
}

Result<std::vector<vk::SourcePlane>> source_planes(const BridgeState &s, GstBuffer *in,
                                                   std::vector<const VkImage *> &images) {
  const guint n = s.format->n_planes;
  if (gst_buffer_n_memory(in) != n)
    return Error{EINVAL, "the frame has " + std::to_string(gst_buffer_n_memory(in)) +
                             " memories; its format needs one VkImage per plane (" +
                             std::to_string(n) + ")"};
  std::vector<vk::SourcePlane> sources;
  for (guint p = 0; p < n; ++p) {
    auto image = plane_image(s, in, p);
    if (!image)
      return image.error();
    images.push_back(*image);
    sources.push_back({reinterpret_cast<::VkImage>((*image)->image()),
                       vk::plane_extent(s.in_info, p), s.format->planes[p].bytes_per_texel});
  }
  return sources;
}

// The output frame's memfd as a VkBuffer, from the destination cache.
// nullptr when it cannot be imported (the caller copies through staging).
ImportCache<vk::TargetBuffer>::Handle import_target(GstElement *element, BridgeState &s,
                                                    GstBuffer *out, const FrameLayout &layout) {
  for (guint p = 0; p < layout.n_planes; ++p)
    if (layout.planes[p].memory != 0 || !gst_is_fd_memory(gst_buffer_peek_memory(out, 0)))
      return nullptr;  // one fd holding every plane: what the bridge's pool makes
  auto key = frame_import_key(out, layout);
  if (!key)
    return nullptr;
  BufferSource source(out, layout, *key);
  auto got = s.targets.acquire(*key, source, [&] {
    return vk::TargetBuffer::import_fd(s.device,
                                       gst_fd_memory_get_fd(gst_buffer_peek_memory(out, 0)));
  });
  if (!got) {
    GST_INFO_OBJECT(element, "output buffer not imported: %s", got.error().message.c_str());
    return nullptr;
  }
  s.stats.add(got->hit ? kDstHits : kDstMisses);
  return got->import;
}

GstFlowReturn copy_through_staging(GstElement *element, BridgeState &s,
                                   const std::vector<vk::SourcePlane> &sources,
                                   const FrameLayout &layout, GstBuffer *out) {
  // Staging planes are tightly packed at the output's strides.
  std::vector<vk::TargetPlane> targets;
  for (guint p = 0; p < layout.n_planes; ++p)
    targets.push_back({VkDeviceSize(GST_VIDEO_INFO_PLANE_OFFSET(&layout.info, p)),
                       uint32_t(GST_VIDEO_INFO_PLANE_STRIDE(&layout.info, p))});
  if (!s.staging_buffer) {
    auto made = vk::TargetBuffer::staging(s.device, GST_VIDEO_INFO_SIZE(&layout.info));
    if (!made) {
      GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("%s", made.error().message.c_str()), (nullptr));
      return GST_FLOW_ERROR;
    }
    s.staging_buffer.emplace(std::move(made).value());
  }
  auto ran = s.device->run_commands(
      [&](VkCommandBuffer cmd) {
        vk::record_download(cmd, sources, targets, s.staging_buffer->buffer());
      },
      kGpuTimeoutNs);
  if (!ran) {
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("%s", ran.error().message.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  GstMapInfo map;
  if (!gst_buffer_map(out, &map, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR(element, RESOURCE, WRITE, ("Cannot map the output buffer"), (nullptr));
    return GST_FLOW_ERROR;
  }
  const size_t n = MIN(map.size, GST_VIDEO_INFO_SIZE(&layout.info));
  std::memcpy(map.data, s.staging_buffer->mapped(), n);
  gst_buffer_unmap(out, &map);
  s.stats.add(kCopies);
  s.stats.add(kBytesCopied, n);
  std::lock_guard l(s.lock);
  s.last_path = "copy";
  return GST_FLOW_OK;
}

// Arms every image's gate when the frame is done with, whatever the outcome:
// after the copy retired, or on a refusal or failure (the images will not be
// read), so the producer never waits for a slot the bridge let go of.
class ArmOnExit {
 public:
  explicit ArmOnExit(GstBuffer *in) : in_(in) {}
  ~ArmOnExit() {
    for (guint i = 0; i < gst_buffer_n_memory(in_); ++i)
      if (const VkImage *image =
              vk_image_from_c(gst_ef_vk_image_memory_get_image(gst_buffer_peek_memory(in_, i))))
        if (image->acquire_release())
          image->acquire_release()->arm();
  }
  ArmOnExit(const ArmOnExit &) = delete;
  ArmOnExit &operator=(const ArmOnExit &) = delete;

 private:
  GstBuffer *in_;
};

}  // namespace

GstFlowReturn bridge_out_of_vulkan(GstElement *element, BridgeState &s, GstBuffer *in,
                                   GstBuffer *out) {
  const ArmOnExit arm(in);
  std::vector<const VkImage *> images;
  auto sources = source_planes(s, in, images);
  if (!sources)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid VkImage frame: " + sources.error().message);
  auto layout = locate_planes(out, s.out_info);
  if (!layout) {
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                      ("Unusable output buffer: %s", layout.error().message.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  bool strides_fit = true;
  for (guint p = 0; p < layout->n_planes; ++p)
    strides_fit &=
        GST_VIDEO_INFO_PLANE_STRIDE(&layout->info, p) % s.format->planes[p].bytes_per_texel == 0;
  auto target = strides_fit ? import_target(element, s, out, *layout) : nullptr;
  GstFlowReturn ret = GST_FLOW_OK;
  if (target) {
    std::vector<vk::TargetPlane> targets;
    for (guint p = 0; p < layout->n_planes; ++p)
      targets.push_back({VkDeviceSize(layout->planes[p].offset),
                         uint32_t(GST_VIDEO_INFO_PLANE_STRIDE(&layout->info, p))});
    auto ran = s.device->run_commands(
        [&](VkCommandBuffer cmd) { vk::record_download(cmd, *sources, targets, target->buffer()); },
        kGpuTimeoutNs);
    if (!ran) {
      GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("%s", ran.error().message.c_str()), (nullptr));
      ret = GST_FLOW_ERROR;
    } else {
      std::lock_guard l(s.lock);
      s.last_path = "gpu-copy";
    }
  } else {
    s.stats.add(kDeclines);
    ret = copy_through_staging(element, s, *sources, *layout, out);
  }
  if (ret != GST_FLOW_OK)
    return ret;
  s.stats.add(kDownloads);
  gst_buffer_add_ef_identity_meta(out, nullptr);
  return GST_FLOW_OK;
}

}  // namespace ef::gst
