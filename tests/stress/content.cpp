// SPDX-License-Identifier: LGPL-2.1-or-later
#include "content.hpp"

#include <gst/allocators/allocators.h>

#include <unistd.h>

#include <algorithm>

#include "frames.hpp"
#include "stress.hpp"

namespace ef::stress {

namespace {

GstStructure *linear_options() {
  return gst_structure_new(
      "options", GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      GST_VIDEO_RESAMPLER_METHOD_LINEAR, GST_VIDEO_CONVERTER_OPT_CHROMA_RESAMPLER_METHOD,
      GST_TYPE_VIDEO_RESAMPLER_METHOD, GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
      GST_VIDEO_CONVERTER_OPT_THREADS, G_TYPE_UINT, 1, nullptr);
}

void convert(GstVideoFrame *from, GstVideoFrame *to) {
  GstVideoConverter *c = gst_video_converter_new(&from->info, &to->info, linear_options());
  if (!c)
    fail_case("GstVideoConverter cannot convert " + describe(from->info) + " to " +
              describe(to->info));
  gst_video_converter_frame(c, from, to);
  gst_video_converter_free(c);
}

GstBuffer *allocate(gsize size, Memory memory) {
  if (memory == Memory::System)
    return gst_buffer_new_allocate(nullptr, size, nullptr);
  int fd = ef::test::make_memfd("ef-stress-frame", size);
  if (fd < 0)
    fail_case("memfd_create failed");
  GstAllocator *alloc = gst_fd_allocator_new();
  GstMemory *mem = gst_fd_allocator_alloc(alloc, fd, size, GST_FD_MEMORY_FLAG_NONE);
  gst_object_unref(alloc);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, mem);
  return buffer;
}

}  // namespace

GstVideoInfo video_info(GstVideoFormat format, guint width, guint height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  return info;
}

GstBuffer *ramp_frame(const GstVideoInfo &info, Memory memory, uint32_t phase) {
  const guint w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  GstVideoInfo rgba_info = video_info(GST_VIDEO_FORMAT_RGBA, w, h);
  GstBuffer *rgba = gst_buffer_new_allocate(nullptr, rgba_info.size, nullptr);
  GstVideoFrame src;
  gst_video_frame_map(&src, &rgba_info, rgba, GST_MAP_WRITE);
  const guint shift = (phase * 7) % 30;
  // Ramps as steep as over a 64-pixel side at most: on tiny frames the
  // chroma is nearly flat, so the backends' chroma siting (a convention, not
  // a defect) does not decide the comparison, while a lost or misplaced
  // plane still does.
  const guint rw = std::max(w, 64u), rh = std::max(h, 64u);
  for (guint y = 0; y < h; ++y) {
    guint8 *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)) +
                  gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0);
    for (guint x = 0; x < w; ++x) {
      row[4 * x + 0] = guint8(30 + shift + 170 * x / rw);
      row[4 * x + 1] = guint8(30 + shift + 170 * y / rh);
      row[4 * x + 2] = guint8(220 - shift - 150 * (x + y) / (rw + rh));
      row[4 * x + 3] = 255;
    }
  }
  GstBuffer *out = ef::test::with_meta(allocate(info.size, memory), info);
  GstVideoFrame dst;
  GstVideoInfo copy = info;
  if (!gst_video_frame_map(&dst, &copy, out, GST_MAP_WRITE))
    fail_case("cannot map a new input frame " + describe(info));
  convert(&src, &dst);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  gst_buffer_unref(rgba);
  return out;
}

GstBuffer *ramp_frame_in_fd(int fd, const GstVideoInfo &info, uint32_t phase) {
  GstBuffer *bytes = ramp_frame(info, Memory::System, phase);
  GstMapInfo map;
  gst_buffer_map(bytes, &map, GST_MAP_READ);
  const ssize_t written = pwrite(fd, map.data, map.size, 0);
  gst_buffer_unmap(bytes, &map);
  gst_buffer_unref(bytes);
  if (written != ssize_t(info.size))
    fail_case("cannot write a frame into a ring memfd");
  return ef::test::fd_buffer(fd, info, GST_FD_MEMORY_FLAG_DONT_CLOSE);
}

GstBuffer *reference(GstBuffer *in, const GstVideoInfo &in_info, const GstVideoInfo &out) {
  // GstVideoConverter's 16-bit scaler gives garbage from some sizes (P010
  // 3x3 to 9x1 on 1.22): a deep source is scaled from AYUV of its own size.
  const bool deep = GST_VIDEO_FORMAT_INFO_DEPTH(in_info.finfo, 0) > 8;
  if (deep && (in_info.width != out.width || in_info.height != out.height)) {
    GstVideoInfo ayuv;
    gst_video_info_set_format(&ayuv, GST_VIDEO_FORMAT_AYUV, guint(in_info.width),
                              guint(in_info.height));
    ayuv.colorimetry = in_info.colorimetry;
    GstBuffer *same_size = reference(in, in_info, ayuv);
    GstBuffer *want = reference(same_size, ayuv, out);
    gst_buffer_unref(same_size);
    return want;
  }
  GstBuffer *want = gst_buffer_new_allocate(nullptr, out.size, nullptr);
  GstVideoFrame src, dst;
  GstVideoInfo in_copy = in_info, out_copy = out;
  if (!gst_video_frame_map(&src, &in_copy, in, GST_MAP_READ))
    fail_case("cannot map the input frame for the reference");
  gst_video_frame_map(&dst, &out_copy, want, GST_MAP_WRITE);
  convert(&src, &dst);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  return want;
}

double psnr(GstBuffer *got, const GstVideoInfo &got_info, GstBuffer *want,
            const GstVideoInfo &want_info) {
  GstVideoFrame a, b;
  GstVideoInfo a_info = got_info, b_info = want_info;
  if (!gst_video_frame_map(&a, &a_info, got, GST_MAP_READ))
    fail_case("cannot map the output frame " + describe(got_info));
  gst_video_frame_map(&b, &b_info, want, GST_MAP_READ);
  const double db = ef::test::frame_psnr(&a, &b);
  gst_video_frame_unmap(&b);
  gst_video_frame_unmap(&a);
  return db;
}

std::string describe(const GstVideoInfo &info) {
  std::string s = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info));
  s += " " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) + "x" +
       std::to_string(GST_VIDEO_INFO_HEIGHT(&info)) + " (stride";
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p)
    s += " " + std::to_string(GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
  return s + ")";
}

std::string name_of(GstVideoFormat format, guint width, guint height) {
  return std::string(gst_video_format_to_string(format)) + "_" + std::to_string(width) + "x" +
         std::to_string(height);
}

}  // namespace ef::stress
