// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend behind the element: the source mapped (fd-backed frames
// through a retaining cache of mappings, once per buffer of a ring; other
// memory mapped per frame), dma-buf sync brackets, and the fused libyuv pass
// straight into the output.

#include <cerrno>
#include <optional>
#include <string>

#include "common/dmabuf_sync.hpp"
#include "common/fd_mapping.hpp"
#include "common/frame_importer.hpp"
#include "cpu_border_tag.hpp"
#include "cpu_converter.hpp"
#include "ef/import_cache.hpp"
#include "cpu_backend.hpp"

namespace ef::gst {

namespace {

// A mapping that fails is about one file: the next frame is mapped anew.
constexpr DeclineTexts kMappingDeclines{.import_failed = "the mapping failed"};

class CpuBackend : public ConvertBackend {
 public:
  CpuBackend(const GstVideoInfo &in, const OutputSpec &out, uint32_t cache_capacity,
             unsigned n_threads)
      : in_(in),
        out_(out),
        pool_(n_threads ? n_threads : g_get_num_processors()),
        mappings_(cache_capacity),
        importer_(mappings_, gst_ef_convert_debug, kMappingDeclines, OnFailure::KeepOn) {
    GST_CAT_INFO(gst_ef_convert_debug, "CPU backend: %u threads convert a frame (n-threads %u)",
                 pool_.threads(), n_threads);
  }

  const char *name() const override { return "cpu"; }

  void set_cache_capacity(uint32_t capacity) override { mappings_.set_capacity(capacity); }

  BackendStats stats() const override {
    ImportCacheStats c = mappings_.stats();
    BackendStats s;
    s.src_hits = c.hits;
    s.src_misses = c.misses;
    s.refusals = c.refusals;
    s.borders_kept = borders_kept_;
    return s;
  }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    DmaBufCpuAccess read_access(in, false);
    DmaBufCpuAccess write_access(out, true);
    if (const TensorSpec *tensor = out_.tensor())
      return convert_tensor(in, layout, out, params, *tensor);
    const uint64_t held = cpu::held_border_tag(out);  // before our own map clears it
    GstVideoFrame dst;
    if (!gst_video_frame_map(&dst, out_.image(), out, GST_MAP_WRITE))
      return Error{EIO, "cannot map the output frame"};
    const uint64_t written =
        image_tags_.tag_for_frame(cpu::border_key(dst, params), params.keep_borders);
    const bool kept = written && held == written;
    Result<void> done = read_source(in, layout, [&](const GstVideoFrame &src) {
      return cpu_convert(src, dst, params, pool_, kept);
    });
    gst_video_frame_unmap(&dst);
    finish_borders(done, out, params, kept, written);
    return done;
  }

 private:
  // One contiguous memory of the tensor's bytes (one memory a buffer, as
  // tensor consumers take it). Its border rows are left as they are where
  // our last write into the same memory wrote the same ones and nothing
  // mapped it for writing since (cpu_border_tag.hpp).
  Result<void> convert_tensor(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                              const ConvertParams &params, const TensorSpec &tensor) {
    if (gst_buffer_n_memory(out) != 1)
      return Error{EINVAL, "a tensor buffer must be one memory"};
    const uint64_t held = cpu::held_border_tag(out);  // before our own map clears it
    uint64_t written = 0;
    bool kept = false;
    GstMapInfo map;
    if (!gst_buffer_map(out, &map, GST_MAP_WRITE))
      return Error{EIO, "cannot map the output tensor"};
    Result<void> done;
    if (map.size < tensor.size()) {
      done = Error{EINVAL, "the output buffer of " + std::to_string(map.size) +
                               " bytes is smaller than " + describe(tensor)};
    } else {
      // Made again only when the values change (a property while playing).
      if (!kernel_ || kernel_norm_ != params.norm) {
        kernel_.emplace(tensor.type, params.norm, tensor.channels, tensor.size());
        kernel_norm_ = params.norm;
      }
      written = tensor_tags_.tag_for_frame(
          cpu::border_key(map.data, tensor, params, kernel_->vectorised(), kernel_->streams()),
          params.keep_borders);
      kept = written && held == written;
      const cpu::TensorTarget target{map.data, tensor, kept};
      done = read_source(in, layout, [&](const GstVideoFrame &src) {
        return cpu_convert(src, target, params, *kernel_, pool_);
      });
    }
    gst_buffer_unmap(out, &map);
    finish_borders(done, out, params, kept, written);
    return done;
  }

  // After a write: the memory tagged with the border rows it now holds
  // (no tag, 0, when not keeping them), and the frames whose rows were
  // left counted.
  void finish_borders(const Result<void> &done, GstBuffer *out, const ConvertParams &params,
                      bool kept, uint64_t written) {
    if (!done)
      return;
    cpu::tag_borders(out, written);
    if (kept && cpu::border_rows_of(params).any(out_.height()))
      borders_kept_++;
  }

  // Calls write(source frame) with `in` readable.
  template <typename Write>
  Result<void> read_source(GstBuffer *in, const FrameLayout &layout, Write write) {
    // The element checked every plane's fd (common/frame_fds: open, a
    // buffer, as long as its memory) before the frame came here.
    if (planes_in_fd_memory(in, layout)) {
      auto got =
          importer_.import(nullptr, in, layout, [&] { return FdMapping::create(in, layout); });
      if (got.import) {
        // A frame over the cached mapping: the same fields
        // gst_video_frame_map() fills, from the buffer's real layout.
        GstVideoFrame src{};
        src.info = layout.info;
        src.buffer = in;
        for (guint p = 0; p < layout.n_planes; ++p)
          src.data[p] = const_cast<guint8 *>(got.import->plane(p));
        return write(src);
      }
      // The identity check failed: an fd now names other bytes than the
      // memory's, and mapping the memory would map those.
      if (got.declined == Decline::Refused)
        return Error{ESTALE, "the input cannot be read (an fd closed and its number reused?): " +
                                 got.detail};
    }
    GstVideoFrame src;
    if (!gst_video_frame_map(&src, &in_, in, GST_MAP_READ))
      return Error{EIO, "cannot map the input frame (closed or non-mappable fd?)"};
    auto done = write(src);
    gst_video_frame_unmap(&src);
    return done;
  }

  GstVideoInfo in_;
  OutputSpec out_;
  cpu::Pool pool_;  // made with the caps: a frame starts no thread
  std::optional<cpu::TensorKernel> kernel_;
  TensorNorm kernel_norm_;
  cpu::BorderTags<cpu::TensorBorderKey> tensor_tags_;
  cpu::BorderTags<cpu::ImageBorderKey> image_tags_;
  uint64_t borders_kept_ = 0;
  ImportCache<FdMapping> mappings_;
  FrameImporter<FdMapping> importer_;
};

}  // namespace

std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const OutputSpec &out,
                                                 uint32_t cache_capacity, unsigned n_threads) {
  return std::make_unique<CpuBackend>(in, out, cache_capacity, n_threads);
}

}  // namespace ef::gst
