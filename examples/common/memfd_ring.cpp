// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memfd_ring.hpp"

#include <gst/allocators/allocators.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ef::examples {

const char *wrap_name(Wrap wrap) {
  return wrap == Wrap::Stable ? "stable" : "rewrap";
}

namespace {

// A picture that differs per slot, so a frame shown from the wrong slot would
// be visible to anyone looking at the output.
void paint(GstVideoFrame *frame, guint slot) {
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame); ++p) {
    auto *data = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(frame, p));
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
    guint rows = 0;
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(frame); ++c)
      if (GST_VIDEO_FORMAT_INFO_PLANE(frame->info.finfo, c) == p)
        rows = std::max(rows, guint(GST_VIDEO_FRAME_COMP_HEIGHT(frame, c)));
    for (guint r = 0; r < rows; ++r)
      for (gint b = 0; b < stride; ++b)
        data[gsize(r) * stride + b] = guint8(p == 0 ? r + guint(b) + slot * 64 : 128 + slot * 16);
  }
}

}  // namespace

MemfdRing::MemfdRing(const GstVideoInfo &info, guint slots)
    : info_(info), dmabuf_(gst_dmabuf_allocator_new()) {
  for (guint s = 0; s < slots; ++s) {
    int fd = memfd_create("ef-ring-slot", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, off_t(info_.size)) != 0) {
      error_ = std::string("cannot make a memfd of ") + std::to_string(info_.size) +
               " bytes: " + std::strerror(errno);
      if (fd >= 0)
        close(fd);
      return;
    }
    fds_.push_back(fd);
    GstBuffer *buffer = wrap_fd(fd);
    if (!buffer) {
      error_ = std::string("cannot dup a memfd: ") + std::strerror(errno);
      return;
    }
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info_, buffer, GST_MAP_WRITE)) {
      gst_buffer_unref(buffer);
      error_ = "cannot map a memfd frame for writing";
      return;
    }
    paint(&frame, s);
    gst_video_frame_unmap(&frame);
    stable_.push_back(buffer);
  }
}

MemfdRing::~MemfdRing() {
  for (GstBuffer *buffer : stable_)
    gst_buffer_unref(buffer);
  for (int fd : fds_)
    close(fd);
  gst_object_unref(dmabuf_);
}

GstBuffer *MemfdRing::wrap_fd(int fd) const {
  // The memory owns (and closes) its own dup: it may outlive this frame's
  // trip through the pipeline, for as long as an element keeps it.
  int own = dup(fd);
  if (own < 0)
    return nullptr;
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, gst_dmabuf_allocator_alloc(dmabuf_, own, info_.size));
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info_),
                                 GST_VIDEO_INFO_WIDTH(&info_), GST_VIDEO_INFO_HEIGHT(&info_),
                                 GST_VIDEO_INFO_N_PLANES(&info_), const_cast<gsize *>(info_.offset),
                                 const_cast<gint *>(info_.stride));
  return buffer;
}

GstBuffer *MemfdRing::frame(uint64_t n, Wrap wrap) {
  const size_t slot = size_t(n % fds_.size());
  return wrap == Wrap::Stable ? gst_buffer_ref(stable_[slot]) : wrap_fd(fds_[slot]);
}

GstCaps *MemfdRing::caps() const {
#if GST_CHECK_VERSION(1, 24, 0)
  // Since 1.24 dma-buf caps name the layout as a DRM fourcc (LINEAR: no
  // modifier); glupload takes no other form.
  GstVideoInfoDmaDrm drm;
  gst_video_info_dma_drm_init(&drm);
  if (gst_video_info_dma_drm_from_video_info(&drm, &info_, 0))
    return gst_video_info_dma_drm_to_caps(&drm);
#endif
  GstCaps *caps = gst_video_info_to_caps(&info_);
  gst_caps_set_features(caps, 0, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_DMABUF, nullptr));
  return caps;
}

}  // namespace ef::examples
