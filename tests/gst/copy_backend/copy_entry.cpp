// SPDX-License-Identifier: LGPL-2.1-or-later
// A fourth backend, in the test build only (EF_TEST_COPY_BACKEND): the dry
// run of adding a backend to efconvert. It runs the CPU backend into a
// frame of its own and copies that into the output, as BGRx, or as xRGB
// (each pixel's four bytes reversed: a format no other backend makes, so
// that it shows in the caps). Its registry entry is all efconvert learns of
// it: this folder and one line of backend_registry.cpp add it.
#include <cstring>
#include <memory>

#include "common/gst_ptr.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "efconvert/backends/cpu/cpu_backend.hpp"

namespace ef::gst {

namespace {

class CopyBackend final : public ConvertBackend {
 public:
  CopyBackend(std::unique_ptr<ConvertBackend> cpu, const GstVideoInfo &out, bool reversed)
      : cpu_(std::move(cpu)), reversed_(reversed) {
    gst_video_info_set_format(&bgrx_, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_INFO_WIDTH(&out),
                              GST_VIDEO_INFO_HEIGHT(&out));
    out_ = out;
  }

  const char *name() const override { return "copy"; }
  BackendStats stats() const override { return cpu_->stats(); }
  void set_cache_capacity(uint32_t capacity) override { cpu_->set_cache_capacity(capacity); }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    BufferPtr own(gst_buffer_new_allocate(nullptr, bgrx_.size, nullptr));
    if (auto done = cpu_->convert(in, layout, own.get(), params); !done)
      return done.error();
    GstVideoFrame src, dst;
    if (!gst_video_frame_map(&src, &bgrx_, own.get(), GST_MAP_READ))
      return Error{EIO, "cannot map the CPU backend's frame"};
    if (!gst_video_frame_map(&dst, &out_, out, GST_MAP_WRITE)) {
      gst_video_frame_unmap(&src);
      return Error{EIO, "cannot map the output"};
    }
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&out_); ++y) {
      const auto *s = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)) +
                      y * GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0);
      auto *d = static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&dst, 0)) +
                y * GST_VIDEO_FRAME_PLANE_STRIDE(&dst, 0);
      const size_t bytes = size_t(GST_VIDEO_INFO_WIDTH(&out_)) * 4;
      if (!reversed_)
        std::memcpy(d, s, bytes);
      else
        for (size_t i = 0; i < bytes; i += 4)
          for (size_t b = 0; b < 4; ++b)
            d[i + b] = s[i + 3 - b];
    }
    gst_video_frame_unmap(&dst);
    gst_video_frame_unmap(&src);
    return {};
  }

 private:
  std::unique_ptr<ConvertBackend> cpu_;
  GstVideoInfo bgrx_{}, out_{};
  const bool reversed_;
};

const BackendTable &copy_table() {
  static const BackendTable table{{
      {{"NV12", "I420"}, kPlainMemory, OutputKind::Image, {"BGRx", "xRGB"}, kPlainMemory},
  }};
  return table;
}

// The CPU pass's, and the copy's: the same class, so auto times both.
Facts observe(const BackendContext &ctx, const Machine &m) {
  return backend_named("cpu")->observe(ctx, m);
}
Cost cost(const Machine &m, const Facts &f) {
  Cost c = backend_named("cpu")->cost(m, f);
  c.why = "the CPU pass and a copy";
  return c;
}

Result<std::unique_ptr<ConvertBackend>> make(const BackendContext &ctx, const GstVideoInfo &in,
                                             const OutputSpec &out, const Conversion &c) {
  GstVideoInfo bgrx;
  gst_video_info_set_format(&bgrx, GST_VIDEO_FORMAT_BGRx, out.width(), out.height());
  auto cpu =
      make_cpu_backend(in, OutputSpec(bgrx), ctx.settings.cache_capacity, ctx.settings.n_threads);
  return std::unique_ptr<ConvertBackend>(
      new CopyBackend(std::move(cpu), *out.image(), c.output == "xRGB"));
}

}  // namespace

const BackendEntry &copy_backend_entry() {
  static const BackendEntry entry{
      .value = 4,
      .name = "copy",
      .label = "copy",
      .blurb = "The CPU pass, copied (a test build's backend)",
      .when = "copy for xRGB",
      .table = copy_table,
      .device = nullptr,
      .device_always = false,
      .pipelines_readbacks = false,
      .honours = kCacheCapacity | kNThreads,
      .compute_missing = nullptr,
      .observe = observe,
      .cost = cost,
      .learn = nullptr,
      .size_limit = nullptr,
      .make = make,
  };
  return entry;
}

}  // namespace ef::gst
