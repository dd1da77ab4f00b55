// SPDX-License-Identifier: LGPL-2.1-or-later
#include "short_fds.hpp"

#include <gst/allocators/allocators.h>
#include <unistd.h>

#include "frames.hpp"

namespace ef::test {

namespace {

// An fd memory of `claimed` bytes over a new memfd holding `bytes`, cut to
// `cut` bytes after it is written.
GstMemory *cut_memfd(GstAllocator *alloc, const guint8 *bytes, gsize claimed, gsize cut, int &fd) {
  fd = make_memfd("ef-test-short", claimed);
  g_assert_cmpint(fd, >=, 0);
  g_assert_cmpint(pwrite(fd, bytes, claimed, 0), ==, gssize(claimed));
  g_assert_cmpint(ftruncate(fd, off_t(cut)), ==, 0);
  return gst_fd_allocator_alloc(alloc, fd, claimed, GST_FD_MEMORY_FLAG_NONE);
}

}  // namespace

ShortFdFrame short_fd_frame(guint which) {
  ShortFdFrame f;
  const bool i420 = which == 1;
  gst_video_info_set_format(&f.info, i420 ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_NV12, 330,
                            246);
  const GstVideoInfo &info = f.info;
  GstBuffer *pattern = system_frame(info, 5);
  GstMapInfo map;
  gst_buffer_map(pattern, &map, GST_MAP_READ);
  GstAllocator *alloc = gst_fd_allocator_new();
  f.buffer = gst_buffer_new();
  int fd = -1;
  switch (which) {
    case 0:
      f.what = "NV12, one memfd cut at the end of the luma plane";
      f.plane = 1;
      gst_buffer_append_memory(f.buffer, cut_memfd(alloc, map.data, info.size, info.offset[1], fd));
      f.fd = fd;
      break;
    case 1: {
      f.what = "I420, one memfd cut inside the V plane";
      f.plane = 2;
      const gsize v_bytes = info.size - info.offset[2];
      gst_buffer_append_memory(
          f.buffer, cut_memfd(alloc, map.data, info.size, info.offset[2] + v_bytes / 2, fd));
      f.fd = fd;
      break;
    }
    default: {
      f.what = "NV12 in two memfds, the chroma's cut in half";
      f.plane = 1;
      const gsize luma = info.offset[1], chroma = info.size - info.offset[1];
      gst_buffer_append_memory(f.buffer, cut_memfd(alloc, map.data, luma, luma, fd));
      gst_buffer_append_memory(f.buffer, cut_memfd(alloc, map.data + luma, chroma, chroma / 2, fd));
      f.fd = fd;
      break;
    }
  }
  gst_object_unref(alloc);
  gst_buffer_unmap(pattern, &map);
  gst_buffer_unref(pattern);
  gst_buffer_add_video_meta_full(f.buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                 GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                 GST_VIDEO_INFO_N_PLANES(&info), const_cast<gsize *>(info.offset),
                                 const_cast<gint *>(info.stride));
  return f;
}

}  // namespace ef::test
