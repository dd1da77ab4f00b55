// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frames.hpp"

#include <fcntl.h>
#include <gst/allocators/allocators.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ef::test {

namespace {

template <typename Visit>
bool for_each_visible_byte(GstVideoFrame *frame, Visit visit) {
  const GstVideoInfo *info = &frame->info;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame); ++p) {
    guint8 *data = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(frame, p));
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
    gsize row_bytes = 0;
    guint rows = 0;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(info); ++c) {
      if (GST_VIDEO_FORMAT_INFO_PLANE(info->finfo, c) != p)
        continue;
      row_bytes = std::max<gsize>(row_bytes, gsize(GST_VIDEO_INFO_COMP_WIDTH(info, c)) *
                                                 GST_VIDEO_INFO_COMP_PSTRIDE(info, c));
      rows = std::max<guint>(rows, GST_VIDEO_INFO_COMP_HEIGHT(info, c));
    }
    for (guint r = 0; r < rows; ++r)
      for (guint b = 0; b < row_bytes; ++b)
        if (!visit(p, r, b, data[gsize(r) * stride + b]))
          return false;
  }
  return true;
}

}  // namespace

void fill_frame(GstVideoFrame *frame, uint32_t seed) {
  const GstVideoInfo *info = &frame->info;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(frame); ++p) {
    guint8 *data = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(frame, p));
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
    guint rows = GST_VIDEO_FRAME_COMP_HEIGHT(frame, 0);
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(info); ++c)
      if (GST_VIDEO_FORMAT_INFO_PLANE(info->finfo, c) == p)
        rows = GST_VIDEO_FRAME_COMP_HEIGHT(frame, c);
    for (guint r = 0; r < rows; ++r)
      for (gint b = 0; b < stride; ++b)
        data[gsize(r) * stride + b] = pattern_byte(seed, p, r, guint(b));
  }
}

std::string check_frame(GstVideoFrame *frame, uint32_t seed) {
  std::string where;
  for_each_visible_byte(frame, [&](guint p, guint r, guint b, guint8 got) {
    guint8 want = pattern_byte(seed, p, r, b);
    if (got == want)
      return true;
    where = "plane " + std::to_string(p) + " row " + std::to_string(r) + " byte " +
            std::to_string(b) + ": got " + std::to_string(got) + ", want " + std::to_string(want);
    return false;
  });
  return where;
}

std::string check_buffer(GstBuffer *buffer, const GstVideoInfo &info, uint32_t seed) {
  GstVideoFrame frame;
  GstVideoInfo copy = info;
  if (!gst_video_frame_map(&frame, &copy, buffer, GST_MAP_READ))
    return "cannot map the output buffer";
  std::string result = check_frame(&frame, seed);
  gst_video_frame_unmap(&frame);
  return result;
}

double frame_psnr(GstVideoFrame *a, GstVideoFrame *b) {
  double squared = 0;
  gsize n = 0;
  for_each_visible_byte(a, [&](guint p, guint r, guint col, guint8 got) {
    const guint8 *row = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(b, p)) +
                        gsize(r) * GST_VIDEO_FRAME_PLANE_STRIDE(b, p);
    const double d = double(got) - double(row[col]);
    squared += d * d;
    ++n;
    return true;
  });
  if (squared == 0)
    return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(255.0 * 255.0 / (squared / double(n)));
}

std::string check_from_rgba(GstBuffer *out, const GstVideoInfo &info, uint32_t seed) {
  GstVideoFrame f;
  GstVideoInfo copy = info;
  if (!gst_video_frame_map(&f, &copy, out, GST_MAP_READ))
    return "cannot map the output";
  const GstVideoFormat format = GST_VIDEO_INFO_FORMAT(&info);
  const bool planar = GST_VIDEO_INFO_N_PLANES(&info) > 1;
  const guint bpp = planar ? 1 : guint(GST_VIDEO_INFO_COMP_PSTRIDE(&info, 0));
  std::string bad;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info) && bad.empty(); ++p) {
    const auto *data = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, p));
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(&f, p);
    for (guint y = 0; y < guint(GST_VIDEO_INFO_HEIGHT(&info)) && bad.empty(); ++y)
      for (guint x = 0; x < guint(GST_VIDEO_INFO_WIDTH(&info)) && bad.empty(); ++x)
        for (guint b = 0; b < bpp && bad.empty(); ++b) {
          const int got = data[gsize(y) * stride + x * bpp + b];
          auto src = [&](guint c) { return int(pattern_byte(seed, 0, y, 4 * x + c)); };
          int want;
          bool near = false;
          if (format == GST_VIDEO_FORMAT_GRAY8) {
            want = int(std::lround(0.299 * src(0) + 0.587 * src(1) + 0.114 * src(2)));
            near = std::abs(got - want) <= 1;
          } else {
            want = src(planar ? p : b);
          }
          if (got != want && !near)
            bad = "plane " + std::to_string(p) + " pixel " + std::to_string(x) + "," +
                  std::to_string(y) + " byte " + std::to_string(b) + ": got " +
                  std::to_string(got) + ", want " + std::to_string(want);
        }
  }
  gst_video_frame_unmap(&f);
  return bad;
}

int make_memfd(const char *name, gsize size) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, off_t(size)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

GstBuffer *with_meta(GstBuffer *buffer, const GstVideoInfo &info) {
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                                 GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info),
                                 GST_VIDEO_INFO_N_PLANES(&info), const_cast<gsize *>(info.offset),
                                 const_cast<gint *>(info.stride));
  return buffer;
}

GstBuffer *fd_buffer(int fd, const GstVideoInfo &info, GstFdMemoryFlags flags) {
  GstAllocator *alloc = gst_fd_allocator_new();
  GstMemory *mem = gst_fd_allocator_alloc(alloc, fd, info.size, flags);
  gst_object_unref(alloc);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, mem);
  return with_meta(buffer, info);
}

// Writes the pattern of `seed` into a buffer that has its video meta.
static GstBuffer *filled(GstBuffer *buffer, const GstVideoInfo &info, uint32_t seed) {
  GstVideoFrame frame;
  GstVideoInfo copy = info;
  if (gst_video_frame_map(&frame, &copy, buffer, GST_MAP_WRITE)) {
    fill_frame(&frame, seed);
    gst_video_frame_unmap(&frame);
  }
  return buffer;
}

static GstBuffer *wrap_fd(int fd, const GstVideoInfo &info, uint32_t seed, GstFdMemoryFlags flags) {
  return filled(fd_buffer(fd, info, flags), info, seed);
}

GstBuffer *fd_frame(int fd, const GstVideoInfo &info, uint32_t seed) {
  return wrap_fd(fd, info, seed, GST_FD_MEMORY_FLAG_DONT_CLOSE);
}

GstBuffer *memfd_frame(const GstVideoInfo &info, uint32_t seed) {
  return wrap_fd(make_memfd("ef-test-frame", info.size), info, seed, GST_FD_MEMORY_FLAG_NONE);
}

GstBuffer *pipe_frame(const GstVideoInfo &info, int fds[2]) {
  if (pipe(fds) != 0)
    return nullptr;
  GstAllocator *alloc = gst_fd_allocator_new();
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(
      buffer, gst_fd_allocator_alloc(alloc, fds[0], info.size, GST_FD_MEMORY_FLAG_DONT_CLOSE));
  gst_object_unref(alloc);
  return buffer;
}

namespace {

// The disk file: a frame's bytes in a regular file of the working folder,
// gone from the folder once open.
int disk_file_fd(const GstVideoInfo &info, uint32_t seed, std::string &path) {
  gchar *cwd = g_get_current_dir();
  path = std::string(cwd) + "/ef-test-not-a-buffer-XXXXXX";
  g_free(cwd);
  const int fd = mkstemp(path.data());
  if (fd < 0)
    return -1;
  unlink(path.c_str());
  write_frame_to_fd(fd, info, seed);
  return fd;
}

// What the kernel calls the file in /proc/self/fd: the refusal quotes it.
std::string fd_link(int fd) {
  char link[512];
  const ssize_t n = readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link, sizeof link);
  return n > 0 ? std::string(link, size_t(n)) : "?";
}

}  // namespace

NotABufferFrame not_a_buffer_frame(NotABuffer kind, const GstVideoInfo &info, uint32_t seed) {
  int fd = -1;
  std::string what;
  if (kind == NotABuffer::DevNull) {
    fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    what = "a character device (/dev/null)";
  } else if (kind == NotABuffer::DiskFile) {
    std::string path;
    fd = disk_file_fd(info, seed, path);
    struct statfs fs;
    // A working folder on tmpfs makes a tmpfs file of it: no buffer either.
    const bool tmpfs = fd >= 0 && fstatfs(fd, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
    what = std::string(tmpfs ? "a tmpfs file outside /dev/shm" : "a regular file") + " (" + path;
  } else {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) == 0) {
      fd = ends[0];
      close(ends[1]);
      what = "a pipe (" + fd_link(fd);
    }
  }
  g_assert_cmpint(fd, >=, 0);
  return {fd_buffer(fd, info, GST_FD_MEMORY_FLAG_NONE),
          "plane 0's fd " + std::to_string(fd) + " is " + what};
}

GstBuffer *system_frame(const GstVideoInfo &info, uint32_t seed) {
  return filled(with_meta(gst_buffer_new_allocate(nullptr, info.size, nullptr), info), info, seed);
}

GstBuffer *flat_rgba(const GstVideoInfo &info, guint32 rgba) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i + 3 < map.size; i += 4) {
    map.data[i] = guint8(rgba >> 24);
    map.data[i + 1] = guint8(rgba >> 16);
    map.data[i + 2] = guint8(rgba >> 8);
    map.data[i + 3] = guint8(rgba);
  }
  gst_buffer_unmap(buf, &map);
  return buf;
}

void write_frame_to_fd(int fd, const GstVideoInfo &info, uint32_t seed) {
  GstBuffer *frame = system_frame(info, seed);
  GstMapInfo map;
  gst_buffer_map(frame, &map, GST_MAP_READ);
  ssize_t written = pwrite(fd, map.data, map.size, 0);
  gst_buffer_unmap(frame, &map);
  gst_buffer_unref(frame);
  g_assert_cmpint(written, ==, ssize_t(info.size));
}

GstCaps *caps_for(const GstVideoInfo &info, const char *feature) {
#if GST_CHECK_VERSION(1, 24, 0)
  // The dma-buf caps stock elements use since 1.24 (formats with a DRM
  // fourcc; others keep the 1.22 form, which ef's sinks still take).
  GstVideoInfoDmaDrm drm;
  gst_video_info_dma_drm_init(&drm);
  if (feature && g_str_equal(feature, GST_CAPS_FEATURE_MEMORY_DMABUF) &&
      gst_video_info_dma_drm_from_video_info(&drm, &info, 0))
    return gst_video_info_dma_drm_to_caps(&drm);
#endif
  GstCaps *caps = gst_video_info_to_caps(&info);
  if (feature)
    gst_caps_set_features(caps, 0, gst_caps_features_new(feature, nullptr));
  return caps;
}

bool video_info_of(GstCaps *caps, GstVideoInfo *info) {
#if GST_CHECK_VERSION(1, 24, 0)
  if (gst_video_is_dma_drm_caps(caps)) {
    GstVideoInfoDmaDrm drm;
    return gst_video_info_dma_drm_from_caps(&drm, caps) &&
           gst_video_info_dma_drm_to_video_info(&drm, info);
  }
#endif
  return gst_video_info_from_caps(info, caps);
}

}  // namespace ef::test
