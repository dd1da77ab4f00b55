// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend: frames in CUDA memory (memory:CUDAMemory, as NVDEC's
// decoders give them) converted by one kernel on the CUDA context the frame
// was decoded in, so no GL context, no CUDA -> GL copy and no context
// switch on the GPU beyond the decoder's own. The output is read back into
// plain memory (the frame's consumer needs its bytes).
#include <cstring>
#include <mutex>
#include <string>

#include "cuda_driver.hpp"
#include "cuda_kernels.hpp"
#include "cuda_plan.hpp"
#include "efconvert/backend.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

using namespace cuda;

// GstCuda's (gstcudamemory.h): a memory of this type mapped with this flag
// gives its device address.
constexpr const char *kCudaMemoryType = "gst.cuda.memory";
constexpr GstMapFlags kMapCuda = GstMapFlags(GST_MAP_FLAG_LAST << 1);
// GstCuda 1.24+'s GST_CUDA_MEMORY_TRANSFER_NEED_SYNC: the memory's bytes
// may still be on their way on the producer's own stream (1.22's decoders
// finish their copy before they push).
constexpr guint kNeedSync = GST_MEMORY_FLAG_LAST << 2;

// GstCudaMemory's public head (gstcudamemory.h, 1.22 on): its planes as
// allocated, rows pitched as the device wants them.
struct CudaMemoryHead {
  GstMemory mem;
  gpointer context;
  GstVideoInfo info;
};

// Threads of a block: 32 x 8, a warp along a row.
constexpr unsigned kBlockW = 32, kBlockH = 8;

class CudaBackend final : public ConvertBackend {
 public:
  CudaBackend(const Driver &d, const GstVideoInfo &in, const GstVideoInfo &out)
      : d_(d), in_(in), out_(out) {}
  ~CudaBackend() override { release(); }

  const char *name() const override { return "cuda"; }
  void set_cache_capacity(uint32_t) override {}  // nothing cached but the kernel
  BackendStats stats() const override {
    std::lock_guard lock(stats_lock_);
    return stats_;
  }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    if (gst_buffer_n_memory(in) != 1 ||
        !gst_memory_is_type(gst_buffer_peek_memory(in, 0), kCudaMemoryType))
      return Error{EINVAL, "the CUDA backend reads frames in one CUDA memory"};
    GstMemory *mem = gst_buffer_peek_memory(in, 0);
    GstMapInfo src;
    if (!gst_memory_map(mem, &src, GstMapFlags(GST_MAP_READ | kMapCuda)))
      return Error{EIO, "cannot map the CUDA memory of the input"};
    GstVideoFrame dst;
    Result<void> done;
    if (!gst_video_frame_map(&dst, &out_, out, GST_MAP_WRITE)) {
      done = Error{EIO, "cannot map the output frame"};
    } else {
      // The frame's GstVideoMeta where it has one (locate_planes checked it),
      // else the memory's own layout.
      const GstVideoInfo &planes = gst_buffer_get_video_meta(in)
                                       ? layout.info
                                       : reinterpret_cast<CudaMemoryHead *>(mem)->info;
      done = run(reinterpret_cast<CUdeviceptr>(src.data), planes, dst, params,
                 GST_MEMORY_FLAG_IS_SET(mem, kNeedSync));
      gst_video_frame_unmap(&dst);
    }
    gst_memory_unmap(mem, &src);
    if (done) {
      std::lock_guard lock(stats_lock_);
      ++stats_.src_hits;  // read where the decoder left it
      ++stats_.readbacks;
      stats_.bytes_read += uint64_t(GST_VIDEO_INFO_PLANE_STRIDE(&out_, 0)) * out_.height;
    }
    return done;
  }

 private:
  // The kernel on the context that holds `base`, its output read back into
  // `dst`.
  Result<void> run(CUdeviceptr base, const GstVideoInfo &in, GstVideoFrame &dst,
                   const ConvertParams &params, bool need_sync) {
    CUcontext context = nullptr;
    if (CUresult r = d_.PointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, base);
        r != CUDA_SUCCESS)
      return Error{EINVAL, "the input's CUDA address: " + d_.describe("cuPointerGetAttribute", r)};
    auto pass = plan_pass(in, out_, params);
    if (!pass)
      return pass.error();
    if (CUresult r = d_.CtxPushCurrent(context); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuCtxPushCurrent", r)};
    Result<void> done;
    if (need_sync) {
      // Without the producer's stream (GstCuda's API, not linked), all of
      // the context's work: never a frame read before it is written.
      if (CUresult r = d_.CtxSynchronize(); r != CUDA_SUCCESS)
        done = Error{EIO, d_.describe("cuCtxSynchronize", r)};
    }
    if (done)
      done = launch(context, base, in, *pass, dst);
    CUcontext popped = nullptr;
    d_.CtxPopCurrent(&popped);
    return done;
  }

  // With `context` current.
  Result<void> launch(CUcontext context, CUdeviceptr base, const GstVideoInfo &in, Pass &pass,
                      GstVideoFrame &dst) {
    if (auto ready = ensure(context); !ready)
      return ready;
    place_source(pass, base, in);
    pass.out = output_;
    void *args[] = {&pass};
    const unsigned gx = (unsigned(pass.out_w) + kBlockW - 1) / kBlockW;
    const unsigned gy = (unsigned(pass.out_h) + kBlockH - 1) / kBlockH;
    if (CUresult r =
            d_.LaunchKernel(function_, gx, gy, 1, kBlockW, kBlockH, 1, 0, stream_, args, nullptr);
        r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuLaunchKernel", r)};
    // Device -> pinned staging by DMA, waited for asleep, then into the
    // output on this CPU: a copy into pageable memory makes the driver
    // stage it itself, chunk by chunk, and its waits spin (a CPU each of 16
    // processes whose contexts time-slice the GPU). EF_CUDA_READBACK=direct
    // (a diagnostic) copies into the output memory straight.
    const bool direct = staging_ == nullptr;
    CUDA_MEMCPY2D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = output_;
    copy.srcPitch = size_t(pass.out_stride);
    copy.dstMemoryType = CU_MEMORYTYPE_HOST;
    copy.dstHost = direct ? GST_VIDEO_FRAME_PLANE_DATA(&dst, 0) : staging_;
    copy.dstPitch = direct ? size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&dst, 0)) : copy.srcPitch;
    copy.WidthInBytes = size_t(pass.out_w) * size_t(pass.bpp);
    copy.Height = size_t(pass.out_h);
    if (CUresult r = d_.Memcpy2DAsync(&copy, stream_); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuMemcpy2DAsync", r)};
    // The bytes are the consumer's: wait for them, asleep.
    if (CUresult r = d_.EventRecord(done_, stream_); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuEventRecord", r)};
    if (CUresult r = d_.EventSynchronize(done_); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuEventSynchronize", r)};
    if (!direct)
      for (size_t y = 0; y < copy.Height; ++y)
        std::memcpy(static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&dst, 0)) +
                        y * size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&dst, 0)),
                    static_cast<const uint8_t *>(staging_) + y * copy.srcPitch, copy.WidthInBytes);
    return {};
  }

  // The kernel (shared within the context), a stream, an event and the
  // output's device memory on `context` (current), made once; again where
  // frames come from another context.
  Result<void> ensure(CUcontext context) {
    if (context == context_ && function_)
      return {};
    release();
    Result<void> made = make(context);
    if (!made)
      release();  // nothing half made is used by the next frame
    return made;
  }

  Result<void> make(CUcontext context) {
    auto kernel = acquire_kernel(d_, context);
    if (!kernel)
      return kernel.error();
    context_ = context;
    function_ = *kernel;
    if (CUresult r = d_.StreamCreate(&stream_, CU_STREAM_NON_BLOCKING); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuStreamCreate", r)};
    if (CUresult r = d_.EventCreate(&done_, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING);
        r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuEventCreate", r)};
    const size_t bytes = size_t(GST_VIDEO_INFO_PLANE_STRIDE(&out_, 0)) * size_t(out_.height);
    if (CUresult r = d_.MemAlloc(&output_, bytes); r != CUDA_SUCCESS)
      return Error{ENOMEM, d_.describe("cuMemAlloc", r)};
    const char *readback = g_getenv("EF_CUDA_READBACK");
    if (!(readback && std::strcmp(readback, "direct") == 0))
      if (CUresult r = d_.MemAllocHost(&staging_, bytes); r != CUDA_SUCCESS)
        return Error{ENOMEM, d_.describe("cuMemAllocHost", r)};
    GST_DEBUG("CUDA kernel loaded on context %p", static_cast<void *>(context));
    return {};
  }

  // What ensure() made, on its context.
  void release() {
    if (!context_)
      return;
    if (d_.CtxPushCurrent(context_) == CUDA_SUCCESS) {
      if (output_)
        d_.MemFree(output_);
      if (staging_)
        d_.MemFreeHost(staging_);
      if (done_)
        d_.EventDestroy(done_);
      if (stream_)
        d_.StreamDestroy(stream_);
      if (function_)
        release_kernel(d_, context_);
      CUcontext popped = nullptr;
      d_.CtxPopCurrent(&popped);
    }
    context_ = nullptr;
    function_ = nullptr;
    stream_ = nullptr;
    done_ = nullptr;
    output_ = 0;
    staging_ = nullptr;
  }

  const Driver &d_;
  const GstVideoInfo in_, out_;
  CUcontext context_ = nullptr;
  CUfunction function_ = nullptr;
  CUstream stream_ = nullptr;
  CUevent done_ = nullptr;
  CUdeviceptr output_ = 0;
  void *staging_ = nullptr;  // pinned host memory the output is read back into
  mutable std::mutex stats_lock_;
  BackendStats stats_;
};

}  // namespace

Result<std::unique_ptr<ConvertBackend>> make_cuda_backend(const GstVideoInfo &in,
                                                          const OutputSpec &out) {
  const GstVideoInfo *image = out.image();
  if (!image || !cuda::reads(GST_VIDEO_INFO_FORMAT(&in)) ||
      !cuda::writes(GST_VIDEO_INFO_FORMAT(image)))
    return Error{EINVAL, "the CUDA backend does not convert " +
                             std::string(GST_VIDEO_INFO_NAME(&in)) + " to " + out.describe()};
  std::string why;
  const Driver *d = driver(&why);
  if (!d)
    return Error{ENODEV, why};
  return std::unique_ptr<ConvertBackend>(new CudaBackend(*d, in, *image));
}

}  // namespace ef::gst
