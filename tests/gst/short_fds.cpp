// SPDX-License-Identifier: LGPL-2.1-or-later
#include "short_fds.hpp"

#include <gst/allocators/allocators.h>
#include <gst/check/gstcheck.h>
#include <unistd.h>

#include <string>

#include "frames.hpp"
#include "harness.hpp"

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

GstBuffer *short_memfd_frame(const GstVideoInfo &info, gsize file_bytes, uint32_t seed) {
  GstBuffer *pattern = memfd_frame(info, seed);
  GstMapInfo map;
  fail_unless(gst_buffer_map(pattern, &map, GST_MAP_READ));
  GstAllocator *alloc = gst_fd_allocator_new();
  GstBuffer *buffer = gst_buffer_new();
  int fd = -1;
  gst_buffer_append_memory(buffer, cut_memfd(alloc, map.data, info.size, file_bytes, fd));
  gst_object_unref(alloc);
  gst_buffer_unmap(pattern, &map);
  gst_buffer_unref(pattern);
  return with_meta(buffer, info);
}

namespace {

// The plane of `info` that lies past a cut at `bytes`.
guint plane_past(const GstVideoInfo &info, gsize bytes) {
  guint p = 0;
  while (p + 1 < GST_VIDEO_INFO_N_PLANES(&info) && info.offset[p + 1] <= bytes)
    ++p;
  return p;
}

}  // namespace

void expect_short_fds_refused(GstHarness *h, GstElement *element, const GstVideoInfo &info,
                              const std::function<void(uint32_t seed)> &good) {
  constexpr gsize kPage = 4096;
  const gsize cuts[] = {0, (info.size - 1) / kPage * kPage};
  GstBus *bus = attach_bus(h);
  uint32_t seed = 1;
  // What a good frame posts (efupload's warning that it copies) is not the
  // bad frame's message.
  auto good_frame = [&] {
    good(seed++);
    while (GstMessage *m = gst_bus_pop(bus))
      gst_message_unref(m);
  };
  for (gsize cut : cuts) {
    const std::string says = "plane " + std::to_string(plane_past(info, cut)) + " needs bytes to ";
    GstBuffer *bad = short_memfd_frame(info, cut, seed++);
    const std::string fd = "fd " +
                           std::to_string(gst_fd_memory_get_fd(gst_buffer_peek_memory(bad, 0))) +
                           " has " + std::to_string(cut) + " bytes";
    g_object_set(element, "max-errors", 0, nullptr);
    fail_unless_equals_int(gst_harness_push(h, bad), GST_FLOW_ERROR);
    GstBuffer *out = gst_harness_try_pull(h);
    fail_unless(out == nullptr, "a frame came out of a memfd of %zu bytes", cut);
    const std::string error = pop_error(bus);
    for (const std::string &part : {says, fd})
      fail_unless(error.find(part) != std::string::npos, "\"%s\" does not say \"%s\"",
                  error.c_str(), part.c_str());
    good_frame();
    push_bad_frames(
        h, element, bus, 1, 1, [&] { return short_memfd_frame(info, cut, seed); }, says.c_str());
    good_frame();
  }
  release_bus(bus);
}

void expect_convert_short_fds_refused(const char *props, const char *out_caps) {
  GstVideoInfo in;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_NV12, 64, 48);
  GstHarness *h = convert_harness_to(props, in, out_caps);
  GstHarness *fresh = convert_harness_to(props, in, out_caps);
  expect_short_fds_refused(h, harness_element(h, "conv"), in, [&](uint32_t seed) {
    fail_unless(converted_bytes(h, in, seed) == converted_bytes(fresh, in, seed),
                "%s to %s: good frame %u differs from a fresh element's", props, out_caps, seed);
  });
  gst_harness_teardown(fresh);
  gst_harness_teardown(h);
}

}  // namespace ef::test
