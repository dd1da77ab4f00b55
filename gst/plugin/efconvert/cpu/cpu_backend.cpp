// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend behind the element: the source mapped (fd-backed frames
// through a retaining cache of mappings, once per buffer of a ring; other
// memory mapped per frame), dma-buf sync brackets, and the fused libyuv pass
// straight into the output.
#include <gst/allocators/allocators.h>

#include <cerrno>
#include <thread>

#include "common/buffer_source.hpp"
#include "common/dmabuf_sync.hpp"
#include "common/fd_mapping.hpp"
#include "cpu_converter.hpp"
#include "ef/import_cache.hpp"
#include "efconvert/backend.hpp"

namespace ef::gst {

namespace {

bool planes_in_fd_memory(GstBuffer *buffer, const FrameLayout &layout) {
  for (guint p = 0; p < layout.n_planes; ++p)
    if (!gst_is_fd_memory(gst_buffer_peek_memory(buffer, layout.planes[p].memory)))
      return false;
  return true;
}

class CpuBackend : public ConvertBackend {
 public:
  CpuBackend(const GstVideoInfo &in, const GstVideoInfo &out, uint32_t cache_capacity)
      : in_(in),
        out_(out),
        threads_(std::max(1u, std::thread::hardware_concurrency())),
        mappings_(cache_capacity) {}

  const char *name() const override { return "cpu"; }

  BackendStats stats() const override {
    ImportCacheStats c = mappings_.stats();
    BackendStats s;
    s.src_hits = c.hits;
    s.src_misses = c.misses;
    s.refusals = c.refusals;
    return s;
  }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    DmaBufCpuAccess read_access(in, false);
    DmaBufCpuAccess write_access(out, true);
    GstVideoFrame dst;
    if (!gst_video_frame_map(&dst, &out_, out, GST_MAP_WRITE))
      return Error{EIO, "cannot map the output frame"};
    Result<void> done = convert_into(in, layout, dst, params);
    gst_video_frame_unmap(&dst);
    return done;
  }

 private:
  Result<void> convert_into(GstBuffer *in, const FrameLayout &layout, GstVideoFrame &dst,
                            const ConvertParams &params) {
    if (planes_in_fd_memory(in, layout)) {
      if (auto key = frame_import_key(in, layout)) {
        BufferSource source(in, layout, *key);
        auto got = mappings_.acquire(
            *key, source, [&]() -> Result<FdMapping> { return FdMapping::create(in, layout); });
        if (got) {
          // A frame over the cached mapping: the same fields
          // gst_video_frame_map() fills, from the buffer's real layout.
          GstVideoFrame src{};
          src.info = layout.info;
          src.buffer = in;
          for (guint p = 0; p < layout.n_planes; ++p)
            src.data[p] = const_cast<guint8 *>(got->import->plane(p));
          return cpu_convert(src, dst, params, threads_);
        }
      }
    }
    GstVideoFrame src;
    if (!gst_video_frame_map(&src, &in_, in, GST_MAP_READ))
      return Error{EIO, "cannot map the input frame (closed or non-mappable fd?)"};
    auto done = cpu_convert(src, dst, params, threads_);
    gst_video_frame_unmap(&src);
    return done;
  }

  GstVideoInfo in_, out_;
  unsigned threads_;
  ImportCache<FdMapping> mappings_;
};

}  // namespace

std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const GstVideoInfo &out,
                                                 uint32_t cache_capacity) {
  return std::make_unique<CpuBackend>(in, out, cache_capacity);
}

}  // namespace ef::gst
