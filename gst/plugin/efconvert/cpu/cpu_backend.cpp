// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend behind the element: maps both frames (with dma-buf sync
// brackets) and runs the fused libyuv pass straight into the output.
#include <cerrno>
#include <thread>

#include "common/dmabuf_sync.hpp"
#include "cpu_converter.hpp"
#include "efconvert/backend.hpp"

namespace ef::gst {

namespace {

class CpuBackend : public ConvertBackend {
 public:
  CpuBackend(const GstVideoInfo &in, const GstVideoInfo &out)
      : in_(in), out_(out), threads_(std::max(1u, std::thread::hardware_concurrency())) {}

  const char *name() const override { return "cpu"; }

  Result<void> convert(GstBuffer *in, GstBuffer *out, const ConvertParams &params) override {
    DmaBufCpuAccess read_access(in, false);
    DmaBufCpuAccess write_access(out, true);
    GstVideoFrame src, dst;
    if (!gst_video_frame_map(&src, &in_, in, GST_MAP_READ))
      return Error{EIO, "cannot map the input frame (closed or non-mappable fd?)"};
    if (!gst_video_frame_map(&dst, &out_, out, GST_MAP_WRITE)) {
      gst_video_frame_unmap(&src);
      return Error{EIO, "cannot map the output frame"};
    }
    auto done = cpu_convert(src, dst, params, threads_);
    gst_video_frame_unmap(&dst);
    gst_video_frame_unmap(&src);
    return done;
  }

 private:
  GstVideoInfo in_, out_;
  unsigned threads_;
};

}  // namespace

std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const GstVideoInfo &out) {
  return std::make_unique<CpuBackend>(in, out);
}

}  // namespace ef::gst
