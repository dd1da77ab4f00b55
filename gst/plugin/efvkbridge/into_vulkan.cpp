// SPDX-License-Identifier: LGPL-2.1-or-later
// Into Vulkan: an input frame's bytes as VkImages for the application,
// imported once per buffer of the producer's ring (dma-buf, else host
// pointer), else copied into a pooled staging image. See docs/ARCHITECTURE.md,
// "efvkbridge".
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>

#include "bridge_state.hpp"
#include "common/frame_fds.hpp"
#include "common/frame_layout.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

namespace ef::gst {

const DeclineTexts kIntoVulkanDeclines{
    .heading = "Copying frames into Vulkan instead of importing them",
    .system_memory = "input is neither fd-backed nor page-aligned system memory",
    .system_memory_detail = "memory is neither a dma-buf or memfd nor page-aligned system memory",
    .import_failed = "the Vulkan import failed or the driver cannot take this layout",
};

std::string describe_frame(GstBuffer *buffer, uint64_t number) {
  std::string s = "frame " + std::to_string(number);
  if (GST_BUFFER_PTS_IS_VALID(buffer)) {
    gchar *pts =
        g_strdup_printf(" (pts %" GST_TIME_FORMAT ")", GST_TIME_ARGS(GST_BUFFER_PTS(buffer)));
    s += pts;
    g_free(pts);
  }
  return s;
}

namespace {

// Stamps one wrapper per plane and attaches them as the frame's meta.
void attach_images(BridgeState &s, GstBuffer *out, const std::vector<vk::PlaneImage> &planes,
                   const SlotRelease &release, const std::shared_ptr<const void> &anchor,
                   guint32 flags) {
  const vk::Device &device = *s.device;
  const vk::FormatLayout &format = *s.format;
  EfVkImage *wrappers[GST_EF_VK_IMAGE_META_MAX_PLANES] = {};
  for (size_t p = 0; p < planes.size(); ++p) {
    auto image = VkImage::try_from_raw(reinterpret_cast<uint64_t>(planes[p].image), device.device(),
                                       device.instance(), device.physical_device(), device.uuid(),
                                       planes[p].row_pitch, KeepAlive::from_anchor(anchor));
    wrappers[p] =
        vk_image_to_c(image->with_dimensions(planes[p].extent.width, planes[p].extent.height)
                          .with_format(format.pixel_format)
                          .with_plane_format(format.planes[p].plane_format)
                          .with_acquire_release(release));
  }
  // The meta owns the wrappers made for it: one allocation per plane a frame.
  gst_buffer_take_ef_vk_image_meta_planes(out, wrappers, guint(planes.size()))->flags = flags;
}

// fd memory imports as a dma-buf or a host allocation of its mapping;
// system memory only as a host allocation, and only where the device can
// take one and the allocation is page-aligned (an upstream pool asked for
// 4096-byte alignment), else it is copied.
bool importable_memory(const vk::Device &device, GstBuffer *buffer, const FrameLayout &layout) {
  for (guint p = 0; p < layout.n_planes; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, layout.planes[p].memory);
    if (gst_is_fd_memory(mem))
      continue;
    const VkDeviceSize align = device.host_import_alignment();
    // The import covers whole pages from the allocation's start, inside it.
    if (!device.host_import() || mem->parent || (mem->align + 1) % align != 0 ||
        mem->maxsize / align * align < mem->offset + mem->size)
      return false;
  }
  return true;
}

// The zero-copy path: nullptr handle when declined (already counted).
ImportCache<vk::ImportedFrame>::Handle import_frame(GstElement *element, BridgeState &s,
                                                    GstBuffer *in, const FrameLayout &layout) {
  ImportChecks checks;
  checks.takes = [&s](GstBuffer *buffer, const FrameLayout &planes) {
    return importable_memory(*s.device, buffer, planes);
  };
  auto got = s.importer.import(
      element, in, layout,
      [&] { return vk::ImportedFrame::create(s.device, in, layout, *s.format, kGpuTimeoutNs); },
      checks);
  if (!got.import) {
    s.stats.add(kDeclines);
    return nullptr;
  }
  if (got.imported) {
    s.stats.add(kImports);
    GST_DEBUG_OBJECT(element, "imported %s by %s", got.key.describe().c_str(),
                     vk::import_path_name(got.import->path()));
  }
  return got.import;
}

// `number` names the frame in messages.
GstFlowReturn copy_frame(GstElement *element, BridgeState &s, GstBuffer *in, uint64_t number,
                         GstBuffer *out) {
  if (!s.staging) {
    auto ring = vk::StagingRing::create(s.device, s.in_info, *s.format, 4, kGpuTimeoutNs);
    if (!ring) {
      GST_ELEMENT_ERROR(element, RESOURCE, FAILED,
                        ("Cannot make staging images: %s", ring.error().message.c_str()),
                        (nullptr));
      return GST_FLOW_ERROR;
    }
    s.staging = *ring;
  }
  GstVideoFrame frame;
  if (!gst_video_frame_map(&frame, &s.in_info, in, GST_MAP_READ))
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Cannot map the input frame (closed or non-mappable fd?)");
  auto use = s.staging->copy_in(frame, s.release_timeout());
  gst_video_frame_unmap(&frame);
  if (!use) {
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("%s", use.error().message.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  if (use->timed_out) {
    s.stats.add(kGateTimeouts);
    if (s.stats.get(kGateTimeouts) > kTimeoutWarnings)
      GST_WARNING_OBJECT(element, "staging slot %u reused without a release", use->slot);
    else
      GST_ELEMENT_WARNING(element, RESOURCE, BUSY,
                          ("Staging slot %u reused: its last frame's gate was not armed within "
                           "release-timeout",
                           use->slot),
                          ("%s", describe_frame(in, number).c_str()));
  }
  s.stats.add(kCopies);
  s.stats.add(kBytesCopied, s.in_info.size);
  attach_images(s, out, *use->planes, use->release, use->anchor, 0);
  std::lock_guard l(s.lock);
  s.last_path = "copy";
  return GST_FLOW_OK;
}

}  // namespace

GstFlowReturn bridge_into_vulkan(GstElement *element, BridgeState &s, GstBuffer *in,
                                 GstBuffer **out) {
  auto layout = locate_planes(in, s.in_info);
  if (!layout)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid input frame: " + layout.error().message);
  if (auto fds = check_frame_fds(in, *layout); !fds)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Cannot read the input frame: " + fds.error().message);
  const uint64_t number = s.frame_number++;
  // The output is the input frame itself (same memories) with the images'
  // meta; a GstBuffer copy only when someone else holds the input too.
  *out = gst_buffer_is_writable(in) ? in : gst_buffer_copy(in);
  // Before the import: a frame waiting here pins nothing yet.
  if (s.held->wait_for_room(s.max_held()))
    s.stats.add(kHeldWaits);
  auto import = import_frame(element, s, in, *layout);
  if (!import)
    return copy_frame(element, s, in, number, *out);
  const SlotRelease release = import->next_use();
  attach_images(s, *out, import->planes(), release, import,
                import->path() == vk::ImportPath::DmaBuf ? GST_EF_VK_IMAGE_META_FLAG_FOREIGN : 0);
  // The producer's slot stays taken until the application is done with it.
  s.held->hold(in, release, number, s.release_timeout());
  s.stats.raise(kHeldPeak, s.held->held());
  std::lock_guard l(s.lock);
  s.last_path = vk::import_path_name(import->path());
  return GST_FLOW_OK;
}

}  // namespace ef::gst
