// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend: frames in CUDA memory (memory:CUDAMemory, as NVDEC's
// decoders give them) converted by one kernel on the CUDA context the frame
// was decoded in, so no GL context, no CUDA -> GL copy and no context
// switch on the GPU beyond the decoder's own. The output is read back into
// plain memory (the frame's consumer needs its bytes), or copied into the
// output's GL texture on the GPU (GL memory: nothing crosses the bus).
#include <array>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include <gst/gl/gl.h>

#include "common/gl_thread_port.hpp"
#include "cuda_driver.hpp"
#include "cuda_gl_texture.hpp"
#include "cuda_kernels.hpp"
#include "cuda_plan.hpp"
#include "cuda_backend.hpp"

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
  // `gl`: the context of GL-memory outputs (a reference taken), else null.
  CudaBackend(const Driver &d, const OutputSpec &out, GstGLContext *gl)
      : d_(d),
        out_(out),
        rows_(output_rows(out)),
        gl_(gl ? GST_GL_CONTEXT(gst_object_ref(gl)) : nullptr) {
    if (gl_)
      port_.emplace(gl_);
  }
  ~CudaBackend() override {
    if (gl_) {
      // What ensure() made is the GL thread's, where every frame ran.
      port_->run_counted([this](GstGLContext *) { release(); });
      port_.reset();
      gst_object_unref(gl_);
    } else {
      release();
    }
  }

  const char *name() const override { return "cuda"; }
  void set_cache_capacity(uint32_t) override {}  // nothing cached but the kernel
  BackendStats stats() const override {
    std::lock_guard lock(stats_lock_);
    BackendStats s = stats_;
    if (port_) {
      s.gl_handovers = port_->handovers();  // the GL thread the element's context shares
      s.gl_thread_ns = port_->thread_ns();
    }
    return s;
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
    // The frame's GstVideoMeta where it has one (locate_planes checked it),
    // else the memory's own layout.
    Source source{
        reinterpret_cast<CUdeviceptr>(src.data),
        gst_buffer_get_video_meta(in) ? layout.info : reinterpret_cast<CudaMemoryHead *>(mem)->info,
        GST_MEMORY_FLAG_IS_SET(mem, kNeedSync) != 0};
    Result<void> done = gl_ ? into_texture(source, out, params) : into_memory(source, out, params);
    gst_memory_unmap(mem, &src);
    if (done) {
      std::lock_guard lock(stats_lock_);
      ++stats_.src_hits;  // read where the decoder left it
      if (gl_) {
        ++stats_.dst_hits;  // written where the consumer reads it
      } else {
        ++stats_.readbacks;
        for (unsigned p = 0; p < rows_.n_planes; ++p)
          stats_.bytes_read += uint64_t(rows_.planes[p].pitch) * rows_.planes[p].rows;
      }
    }
    return done;
  }

 private:
  struct Source {
    CUdeviceptr base;
    GstVideoInfo planes;
    bool need_sync;
  };

  // Where each plane of the output lies in the buffer's memory.
  struct Destination {
    std::array<uint8_t *, 3> plane{};
    std::array<size_t, 3> pitch{};
  };

  // Into plain memory, on the streaming thread: an image's planes where
  // its frame (its GstVideoMeta) puts them, a tensor's bytes in its one
  // memory.
  Result<void> into_memory(const Source &source, GstBuffer *out, const ConvertParams &params) {
    auto read = [&](const Destination &dst) {
      return on_context(source, params, [&](Pass &) { return read_back(dst); });
    };
    if (const TensorSpec *tensor = out_.tensor()) {
      if (gst_buffer_n_memory(out) != 1)
        return Error{EINVAL, "a tensor buffer must be one memory"};
      GstMapInfo map;
      if (!gst_buffer_map(out, &map, GST_MAP_WRITE))
        return Error{EIO, "cannot map the output tensor"};
      Result<void> done;
      if (map.size < tensor->size())
        done = Error{EINVAL, "the output buffer of " + std::to_string(map.size) +
                                 " bytes is smaller than " + describe(*tensor)};
      else
        done = read(Destination{{map.data}, {rows_.planes[0].pitch}});
      gst_buffer_unmap(out, &map);
      return done;
    }
    GstVideoFrame frame;
    GstVideoInfo info = *out_.image();
    if (!gst_video_frame_map(&frame, &info, out, GST_MAP_WRITE))
      return Error{EIO, "cannot map the output frame"};
    Destination dst;
    for (unsigned p = 0; p < rows_.n_planes; ++p) {
      dst.plane[p] = static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p));
      dst.pitch[p] = size_t(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p));
    }
    Result<void> done = read(dst);
    gst_video_frame_unmap(&frame);
    return done;
  }

  // Into the output's GL texture, on its GL thread: the kernel's output is
  // copied into the texture (registered with CUDA) on the GPU, and unmapping
  // it orders every later GL command after that copy (cuGraphicsUnmap
  // Resources' guarantee), so no thread waits for the GPU.
  Result<void> into_texture(const Source &source, GstBuffer *out, const ConvertParams &params) {
    Result<void> done;
    port_->run_counted([&](GstGLContext *) { done = texture_on_gl_thread(source, out, params); });
    return done;
  }

  Result<void> texture_on_gl_thread(const Source &source, GstBuffer *out,
                                    const ConvertParams &params) {
    GstMemory *mem = gst_buffer_peek_memory(out, 0);
    if (gst_buffer_n_memory(out) != 1 || !gst_is_gl_memory(mem))
      return Error{EINVAL, "the output is not one GL memory"};
    GstMapInfo map;
    if (!gst_memory_map(mem, &map, GstMapFlags(GST_MAP_WRITE | GST_MAP_GL)))
      return Error{EIO, "cannot map the output texture"};
    const guint texture = *reinterpret_cast<guint *>(map.data);
    Result<void> done =
        on_context(source, params, [&](Pass &) { return copy_into_texture(mem, texture); });
    gst_memory_unmap(mem, &map);
    if (done)
      if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(out))
        gst_gl_sync_meta_set_sync_point(sync, gl_);
    return done;
  }

  // The kernel on the CUDA context that holds the source, then `finish`
  // (the output's way out) with that context current.
  template <typename Finish>
  Result<void> on_context(const Source &source, const ConvertParams &params, Finish finish) {
    CUcontext context = nullptr;
    if (CUresult r = d_.PointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, source.base);
        r != CUDA_SUCCESS)
      return Error{EINVAL, "the input's CUDA address: " + d_.describe("cuPointerGetAttribute", r)};
    auto pass = plan_pass(source.planes, out_, params);
    if (!pass)
      return pass.error();
    if (CUresult r = d_.CtxPushCurrent(context); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuCtxPushCurrent", r)};
    Result<void> done;
    if (source.need_sync) {
      // Without the producer's stream (GstCuda's API, not linked), all of
      // the context's work: never a frame read before it is written.
      if (CUresult r = d_.CtxSynchronize(); r != CUDA_SUCCESS)
        done = Error{EIO, d_.describe("cuCtxSynchronize", r)};
    }
    if (done)
      done = ensure(context);
    if (done) {
      place_source(*pass, source.base, source.planes);
      done = launch(*pass);
    }
    if (done)
      done = finish(*pass);
    CUcontext popped = nullptr;
    d_.CtxPopCurrent(&popped);
    return done;
  }

  // The texture of `mem` gets the kernel's output, on the GPU.
  Result<void> copy_into_texture(GstMemory *mem, guint texture) {
    auto resource = registered_texture(d_, gl_, context_, mem, texture);
    if (!resource)
      return resource.error();
    CUgraphicsResource r = *resource;
    if (CUresult e = d_.GraphicsMapResources(1, &r, stream_); e != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuGraphicsMapResources", e)};
    CUarray array = nullptr;
    Result<void> done;
    if (CUresult e = d_.GraphicsSubResourceGetMappedArray(&array, r, 0, 0); e != CUDA_SUCCESS) {
      done = Error{EIO, d_.describe("cuGraphicsSubResourceGetMappedArray", e)};
    } else {
      CUDA_MEMCPY2D copy{};
      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = output_;
      copy.srcPitch = rows_.planes[0].pitch;
      copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
      copy.dstArray = array;
      copy.WidthInBytes = rows_.planes[0].row_bytes;
      copy.Height = rows_.planes[0].rows;
      if (CUresult e = d_.Memcpy2DAsync(&copy, stream_); e != CUDA_SUCCESS)
        done = Error{EIO, d_.describe("cuMemcpy2DAsync", e)};
    }
    if (CUresult e = d_.GraphicsUnmapResources(1, &r, stream_); e != CUDA_SUCCESS && done)
      done = Error{EIO, d_.describe("cuGraphicsUnmapResources", e)};
    return done;
  }

  // The kernel into output_, on stream_ (made by ensure()).
  Result<void> launch(Pass &pass) {
    pass.out = output_;
    void *args[] = {&pass};
    const unsigned gx = (unsigned(pass.out_w) + kBlockW - 1) / kBlockW;
    const unsigned gy = (unsigned(pass.out_h) + kBlockH - 1) / kBlockH;
    if (CUresult r =
            d_.LaunchKernel(function_, gx, gy, 1, kBlockW, kBlockH, 1, 0, stream_, args, nullptr);
        r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuLaunchKernel", r)};
    return {};
  }

  // The kernel's output into `dst` (plain memory), plane by plane.
  Result<void> read_back(const Destination &dst) {
    // Device -> pinned staging by DMA, waited for asleep, then into the
    // output on this CPU: a copy into pageable memory makes the driver
    // stage it itself, chunk by chunk, and its waits spin (a CPU each of 16
    // processes whose contexts time-slice the GPU). EF_CUDA_READBACK=direct
    // (a diagnostic) copies into the output memory straight.
    const bool direct = staging_ == nullptr;
    for (unsigned p = 0; p < rows_.n_planes; ++p) {
      const OutputRows::Plane &plane = rows_.planes[p];
      CUDA_MEMCPY2D copy{};
      copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.srcDevice = output_ + plane.offset;
      copy.srcPitch = plane.pitch;
      copy.dstMemoryType = CU_MEMORYTYPE_HOST;
      copy.dstHost = direct ? dst.plane[p] : static_cast<uint8_t *>(staging_) + plane.offset;
      copy.dstPitch = direct ? dst.pitch[p] : plane.pitch;
      copy.WidthInBytes = plane.row_bytes;
      copy.Height = plane.rows;
      if (CUresult r = d_.Memcpy2DAsync(&copy, stream_); r != CUDA_SUCCESS)
        return Error{EIO, d_.describe("cuMemcpy2DAsync", r)};
    }
    // The bytes are the consumer's: wait for them, asleep.
    if (CUresult r = d_.EventRecord(done_, stream_); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuEventRecord", r)};
    if (CUresult r = d_.EventSynchronize(done_); r != CUDA_SUCCESS)
      return Error{EIO, d_.describe("cuEventSynchronize", r)};
    if (!direct)
      for (unsigned p = 0; p < rows_.n_planes; ++p) {
        const OutputRows::Plane &plane = rows_.planes[p];
        for (size_t y = 0; y < plane.rows; ++y)
          std::memcpy(dst.plane[p] + y * dst.pitch[p],
                      static_cast<const uint8_t *>(staging_) + plane.offset + y * plane.pitch,
                      plane.row_bytes);
      }
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
    const size_t bytes = rows_.bytes;
    if (CUresult r = d_.MemAlloc(&output_, bytes); r != CUDA_SUCCESS)
      return Error{ENOMEM, d_.describe("cuMemAlloc", r)};
    const char *readback = g_getenv("EF_CUDA_READBACK");
    if (!gl_ && !(readback && std::strcmp(readback, "direct") == 0))
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
  const OutputSpec out_;
  const OutputRows rows_;             // how the output lies in output_ (and staging_)
  GstGLContext *const gl_;            // GL-memory outputs' context, else null
  std::optional<GlThreadPort> port_;  // hands frames over to gl_'s thread
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
                                                          const OutputSpec &out, GstGLContext *gl) {
  const GstVideoInfo *image = out.image();
  const bool writes =
      image ? cuda::writes(GST_VIDEO_INFO_FORMAT(image)) : cuda::writes(out.tensor()->type);
  // GL memory: textures of images, a texel a pixel.
  const bool into_gl = !gl || (image && GST_VIDEO_INFO_N_PLANES(image) == 1);
  if (!cuda::reads(GST_VIDEO_INFO_FORMAT(&in)) || !writes || !into_gl)
    return Error{EINVAL, "the CUDA backend does not convert " +
                             std::string(GST_VIDEO_INFO_NAME(&in)) + " to " + out.describe() +
                             (gl ? " in GL memory" : "")};
  std::string why;
  const Driver *d = driver(&why);
  if (!d)
    return Error{ENODEV, why};
  if (gl && !d->gl_interop())
    return Error{ENOTSUP,
                 "GL-memory output: the NVIDIA driver's libcuda.so.1 has no CUDA-GL "
                 "interop"};
  return std::unique_ptr<ConvertBackend>(new CudaBackend(*d, out, gl));
}

}  // namespace ef::gst
