// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend behind the element: the source as textures (imported by
// identity, or the input's own GL memory, or uploaded), one shader pass, and
// the destination as a render target (an fd-backed output imported by
// identity, so the pass writes straight into its memory; plain memory is
// rendered into a scratch texture and read back, pipelined: see
// gl_readback.hpp).
#include <gst/allocators/allocators.h>
#include <gst/gl/gstglfuncs.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <span>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gst/ef/gstef.h>

#include "common/egl_import.hpp"
#include "common/fifo.hpp"
#include "common/frame_importer.hpp"
#include "common/frame_layout.hpp"
#include "common/texture_uploader.hpp"
#include "efconvert/backends/deep_samples.hpp"
#include "ef/import_cache.hpp"
#include "gl_backend.hpp"
#include "gl_converter.hpp"
#include "gl_errors.hpp"
#include "gl_gpu_timer.hpp"
#include "gl_layout.hpp"
#include "common/gl_thread_port.hpp"
#include "common/gst_ptr.hpp"
#include "gl_pack_memory.hpp"
#include "gl_readback.hpp"
#include "gl_tensor_output.hpp"
#include "gl_texture_storage.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// The source planes as textures for one frame; holds what keeps them valid.
struct SourceTextures {
  std::array<guint, GST_VIDEO_MAX_PLANES> ids{};
  ImportCache<EglImport>::Handle import;  // an imported source
  BufferPtr uploaded;                     // an uploaded copy
  GstBuffer *mapped = nullptr;            // GL memory mapped for GL
  std::array<GstMapInfo, GST_VIDEO_MAX_PLANES> maps{};
  guint n_mapped = 0;

  ~SourceTextures() {
    for (guint p = 0; p < n_mapped; ++p)
      gst_memory_unmap(maps[p].memory, &maps[p]);
  }
};

// Declines are counted and logged, never posted: plain memory in or out is
// efconvert's ordinary case. A driver that refuses an import (NVIDIA's EGL
// takes no memfd as a dma-buf) refuses every frame of these caps: the
// import switches off until the caps change and the backend is made anew.
constexpr DeclineTexts kSourceDeclines{
    .what = "source",
    .import_failed = "the EGL import failed",
};
constexpr DeclineTexts kDestinationDeclines{
    .what = "destination",
    .system_memory = "output is not fd-backed memory",
    .import_failed = "the EGL import failed",
};

// Maps each GL memory of `buffer` for GL, which uploads pending CPU writes,
// and collects the texture ids.
Result<void> map_gl_textures(GstBuffer *buffer, SourceTextures &tex) {
  for (guint p = 0; p < gst_buffer_n_memory(buffer) && p < GST_VIDEO_MAX_PLANES; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, p);
    if (!gst_is_gl_memory(mem) ||
        !gst_memory_map(mem, &tex.maps[p], GstMapFlags(GST_MAP_READ | GST_MAP_GL)))
      return Error{EIO, "cannot map input texture " + std::to_string(p) + " for GL"};
    tex.n_mapped = p + 1;
    tex.ids[p] = *reinterpret_cast<guint *>(tex.maps[p].data);
  }
  return {};
}

// The output as one image of rows of `stride` bytes, which is what the byte
// texture of the pass is: RGBA of stride / 4 pixels (an AB24 EGLImage, byte
// k of a texel in channel k), or GRAY8 of stride pixels where the stride is
// no multiple of 4. Only possible when every plane shares the stride and
// starts on a row, as efconvert's and most pools' layouts do.
std::optional<FrameLayout> byte_layout(GstBuffer *out, const GstVideoInfo &info,
                                       ByteTarget &target) {
  GstVideoInfo real = info;
  if (GstVideoMeta *meta = gst_buffer_get_video_meta(out))
    for (guint p = 0; p < meta->n_planes; ++p) {
      real.stride[p] = meta->stride[p];
      real.offset[p] = meta->offset[p];
    }
  const gint stride = real.stride[0];
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&real); ++p)
    if (real.stride[p] != stride || real.offset[p] % gsize(stride) != 0)
      return std::nullopt;
  if (gst_buffer_n_memory(out) != 1)
    return std::nullopt;
  const gsize size = gst_buffer_get_size(out);
  target.stride = guint(stride);
  target.rows = guint(size / gsize(stride));
  target.texel_bytes = ByteTarget::texel_bytes_for(target.stride);
  FrameLayout layout;
  gst_video_info_set_format(&layout.info, target.video_format(), target.width(), target.rows);
  layout.info.stride[0] = stride;
  layout.n_planes = 1;
  GstMemory *mem = gst_buffer_peek_memory(out, 0);
  layout.planes[0] = {0, gsize(mem->offset), size};
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; ++p)
    target.offset[p] = real.offset[p];
  return layout;
}

// llvmpipe rasterizes in blocks of 4 x 4 pixels and reads, masks and
// writes a block's rows back whole, with aligned 16-byte vector loads and
// stores: a render target whose rows do not each start on 16 bytes faults in
// a rasterizer thread, and one whose last block of rows lies past the memory
// writes outside it (or, past a plane, races the draw into the next plane).
// Hardware drivers ask at least as much of a pitch. So a destination plane
// is rendered into in place only where its rows start on 16 bytes and whole
// blocks of its rows lie inside its memory, before the next plane; any
// other is rendered apart and read back. Empty where it fits, else why not.
constexpr gsize kRowAlign = 16, kBlockRows = 4;

std::string render_target_misfit(GstBuffer *out, const ByteTarget &target, guint n_planes,
                                 guint height) {
  if (target.stride % kRowAlign != 0)
    return "its stride of " + std::to_string(target.stride) + " bytes is no multiple of " +
           std::to_string(kRowAlign);
  GstMemory *mem = gst_buffer_peek_memory(out, 0);
  const gsize block_rows = (height + kBlockRows - 1) / kBlockRows * kBlockRows;
  for (guint p = 0; p < n_planes; ++p) {
    const gsize start = mem->offset + target.offset[p];
    if (start % kRowAlign != 0)
      return "plane " + std::to_string(p) + " starts at byte " + std::to_string(start) +
             " of its memory, not on " + std::to_string(kRowAlign);
    gsize limit = mem->maxsize;
    for (guint q = 0; q < n_planes; ++q)
      if (mem->offset + target.offset[q] > start)
        limit = MIN(limit, mem->offset + target.offset[q]);
    const gsize end = start + gsize(target.stride) * block_rows;
    if (end > limit)
      return "plane " + std::to_string(p) + " rendered in blocks of " + std::to_string(kBlockRows) +
             " rows ends at byte " + std::to_string(end) + ", past the " + std::to_string(limit) +
             " it may use";
  }
  return {};
}

// The destination's imports, one per output plane.
using PlaneImports = std::vector<EglImport>;

// Scratch render targets of the read-back path: one set per frame whose
// read-back is in flight, so that a frame never renders into textures an
// earlier frame's read-back still reads (a hazard the driver resolves by
// ordering the GPU, or by waiting on the CPU, on the GL thread every
// element of the context shares). Frames in flight are readback-depth + 1
// at most (kMaxReadbackDepth 4); beyond that the oldest set is reused.
// EF_GL_SCRATCH=1 keeps one set (diagnostics: the behaviour before).
size_t max_scratch_sets() {
  const char *forced = g_getenv("EF_GL_SCRATCH");
  return forced && std::strcmp(forced, "1") == 0 ? 1 : 6;
}

// How long the GL thread waits for a GL sync object at a time before it
// serves the other elements' work again (the streaming thread hands the
// wait over anew).
constexpr uint64_t kWaitSliceNs = 1'000'000;
constexpr uint64_t kWaitLimitNs = 5'000'000'000;

class GlBackend : public ConvertBackend {
 public:
  GlBackend(GstElement *element, GstGLContext *context, const GstVideoInfo &in,
            const GstVideoInfo &out, std::optional<TensorSpec> tensor,
            std::unique_ptr<GlConverter> converter, const GlBackendOptions &options)
      : element_(element),
        hardware_(options.hardware),
        gpu_timing_(options.gpu_timing),
        context_(GST_GL_CONTEXT(gst_object_ref(context))),
        port_(context),
        in_(in),
        out_(out),
        texture_in_(gl::texture_info(in)),
        tensor_spec_(tensor),
        converter_(std::move(converter)),
        src_cache_(options.cache_capacity),
        dst_cache_(options.cache_capacity),
        src_importer_(src_cache_, gst_ef_convert_debug, kSourceDeclines),
        dst_importer_(dst_cache_, gst_ef_convert_debug, kDestinationDeclines),
        max_scratch_(max_scratch_sets()) {}

  ~GlBackend() override {
    drop_in_flight();
    // The read-back ring, the timers, the scratch targets and the
    // converter own GL objects: they die on the GL thread.
    src_cache_.clear();
    dst_cache_.clear();
    uploader_.reset();
    on_gl_thread([this](GstGLContext *ctx) {
      tensor_.reset();
      readback_.reset();
      timer_.reset();
      readback_timer_.reset();
      delete_scratch(ctx);
      converter_.reset();
    });
    gst_object_unref(context_);
  }

  const char *name() const override { return "gl"; }
  const char *gl_shader() const override {
    return converter_->stage() == PassStage::Compute || tensor_spec_ ? "compute" : "fragment";
  }

  // A GPU imports no memfd, so into plain memory it reads back: into pack
  // memory that is the output (one copy, by the GPU) rather than into a
  // pack buffer the CPU then copies out of (measured on an H200, 1080p NV12
  // -> 640x640 RGB: 307 us a frame with the CPU's copy, 137 without). Where
  // a dma-buf heap backs our fd memory a GPU may import it: kept.
  GstAllocator *output_allocator() override {
    if (!hardware_)
      return nullptr;
    ObjectPtr<GstAllocator> fd(gst_ef_fd_allocator_new());
    if (std::strcmp(gst_ef_fd_allocator_get_source(GST_EF_FD_ALLOCATOR(fd.get())), "memfd") != 0)
      return nullptr;
    return gl_pack_allocator_new(context_);
  }

  void set_cache_capacity(uint32_t capacity) override {
    src_cache_.set_capacity(capacity);
    dst_cache_.set_capacity(capacity);
  }

  BackendStats stats() const override {
    BackendStats s;
    ImportCacheStats src = src_cache_.stats(), dst = dst_cache_.stats();
    s.src_hits = src.hits;
    s.src_misses = src.misses;
    s.dst_hits = dst.hits;
    s.dst_misses = dst.misses;
    s.refusals = src.refusals + dst.refusals;
    s.uploads = uploads_.load();
    s.readbacks = readbacks_.load();
    s.declines = declines_.load();
    s.bytes_read = bytes_read_.load();
    if (const GpuTimer *timer = timer_.get()) {
      s.gpu_time_ns = timer->total_ns();
      s.gpu_frames = timer->timed();
    }
    if (const GpuTimer *timer = readback_timer_.get())
      s.readback_gpu_ns = timer->total_ns();
    s.gl_handovers = port_.handovers();
    s.gl_thread_ns = port_.thread_ns();
    s.gl_wait_ns = gl_wait_ns_.load();
    s.gpu_wait_ns = gpu_wait_ns_.load();
    s.gl_source_ns = gl_source_ns_.load();
    s.gl_pass_ns = gl_pass_ns_.load();
    s.gl_readback_ns = gl_readback_ns_.load();
    return s;
  }

  size_t in_flight() const override { return flight_.size(); }

  // Completes the oldest frame in flight on the streaming thread: where
  // fences may be waited for on any thread this thread waits (the GL
  // thread, which other elements share, never does) and copies out of a
  // pack buffer mapped for good; a frame read into the output itself, or
  // rendered in place, needs nothing more. Otherwise the GL thread waits
  // (in slices) and copies.
  Result<GstBuffer *> complete_oldest() override {
    if (flight_.empty())
      return Error{EINVAL, "no frame in flight"};
    // The input's reference goes once the fence has signalled, below: until
    // then the GPU may still sample it, and a producer whose slot came back
    // would be rewriting it under the draw.
    InFlight frame = std::move(flight_.front());
    flight_.pop_front();
    GstBuffer *out = frame.out;
    ReadbackRing &ring = *readback_;
    const bool reads_back = ring.oldest_bytes() > 0;
    if (!ring.oldest_finished() && ring.fences_any_thread()) {
      const uint64_t start = now_ns();
      auto waited = ring.wait_oldest();
      gpu_wait_ns_ += now_ns() - start;
      if (!waited) {
        ring.pop_complete();
        return waited.error();
      }
    }
    Result<void> done;
    if (ring.oldest_finished() && ring.oldest_in_output())
      ring.pop_complete();
    else if (ring.oldest_in_output())
      done = finish_on_gl_thread(ring, nullptr, 0);
    else
      done = copy_out(ring, out);
    if (!done)
      return done.error();
    if (reads_back) {
      readbacks_++;
      bytes_read_ += gst_buffer_get_size(out);
    }
    return out;
  }

  void drop_in_flight() override {
    if (flight_.empty())
      return;
    // drop() waits for the GPU before the inputs are let go.
    on_gl_thread([this](GstGLContext *) { readback_->drop(); });
    flight_.clear();
  }

  void sync_stats() override {
    if (!timer_ && !readback_timer_)
      return;  // no timer queries (gpu-timing): nothing arrives later
    on_gl_thread([this](GstGLContext *) {
      for (GpuTimer *timer : {timer_.get(), readback_timer_.get()})
        if (timer)
          timer->collect(true);
    });
  }

  // The whole frame on the GL thread, in one hand-over: mapping GL memory
  // for GL, and each GstGL call that needs the context, hops to that thread
  // and back when called from another (a thread wake-up each way, some
  // 10 us), and a frame makes several; on the GL thread they run at once.
  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    Result<void> result;
    bool fenced = false;
    on_gl_thread([&](GstGLContext *ctx) {
      const size_t before = readback_ ? readback_->in_flight() : 0;
      result = convert_on_gl_thread(ctx, in, layout, out, params);
      fenced = readback_ && readback_->in_flight() > before;
    });
    if (result && fenced)
      flight_.push_back({out, BufferPtr(gst_buffer_ref(in))});
    return result;
  }

 private:
  static uint64_t now_ns() {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count());
  }

  // Every hand-over to the GL thread: counted, and its time there summed
  // (gl-handovers, gl-thread-ns), by the port.
  template <typename F>
  void on_gl_thread(F &&f) {
    port_.run_counted(std::forward<F>(f));
  }

  // A frame's bytes into `out` where the fence alone did not complete it:
  // copied out of a pack buffer mapped for good on this thread once its
  // fence signalled, else waited for and copied on the GL thread.
  Result<void> copy_out(ReadbackRing &ring, GstBuffer *out) {
    GstMapInfo map;
    if (!gst_buffer_map(out, &map, GST_MAP_WRITE)) {
      // Done with the GPU before the input is let go.
      if (ring.oldest_finished())
        ring.pop_complete();
      else
        (void)finish_on_gl_thread(ring, nullptr, 0);
      return Error{EIO, "cannot map the output buffer"};
    }
    Result<void> result;
    if (ring.oldest_finished() && ring.oldest_copies_without_gl())
      result = ring.copy_oldest(map.data, map.size);
    else
      result = finish_on_gl_thread(ring, map.data, map.size);
    gst_buffer_unmap(out, &map);
    return result;
  }

  // The oldest frame waited for and completed on the GL thread (its bytes
  // into `dst`, where they are not in the output already). A wait there
  // holds up every element of the context: it lasts kWaitSliceNs at most,
  // and is handed over anew while the frame is not done, so the other
  // elements' work queued meanwhile runs in between.
  Result<void> finish_on_gl_thread(ReadbackRing &ring, uint8_t *dst, size_t size) {
    const uint64_t deadline = now_ns() + kWaitLimitNs;
    for (;;) {
      Result<bool> finished = false;
      on_gl_thread([&](GstGLContext *) {
        const uint64_t start = now_ns();
        finished = ring.finish_oldest(dst, size, kWaitSliceNs);
        gl_wait_ns_ += now_ns() - start;
      });
      if (!finished)
        return finished.error();
      if (*finished)
        return {};
      if (now_ns() > deadline) {
        on_gl_thread([&](GstGLContext *) { ring.pop_complete(); });
        return Error{EIO, "the GPU did not finish a frame within 5 s"};
      }
    }
  }

  Result<void> convert_on_gl_thread(GstGLContext *ctx, GstBuffer *in, const FrameLayout &layout,
                                    GstBuffer *out, const ConvertParams &params) {
    if (const std::string earlier = take_gl_errors(ctx); !earlier.empty())
      GST_WARNING_OBJECT(element_, "GL errors flagged before this frame's commands: %s",
                         earlier.c_str());
    SourceTextures src;
    const uint64_t start = now_ns();
    auto got = source_textures(in, layout, src);
    gl_source_ns_ += now_ns() - start;
    if (!got)
      return got;
    // GL sync objects on a GPU, whose frames are done long before they are
    // needed; EGL sync objects on a software rasterizer (gl_fence.hpp).
    if (!readback_)
      readback_ =
          std::make_unique<ReadbackRing>(ctx, hardware_ ? GlFences::Kind::Gl : GlFences::Kind::Egl);
    if (tensor_spec_)
      return render_tensor(ctx, src, out, params);
    if (gst_is_gl_memory(gst_buffer_peek_memory(out, 0)))
      return render_texture(ctx, src, out, params);
    ByteTarget target;
    auto bytes = byte_layout(out, out_, target);
    if (!bytes)
      return Error{EINVAL, "the output's planes do not share one stride"};
    ImportCache<PlaneImports>::Handle dst;
    if (planes_in_fd_memory(out, *bytes) && fits_in_place(out, target)) {
      const uint64_t start = now_ns();
      dst = dst_importer_
                .import(element_, out, *bytes, [&] { return import_planes(out, *bytes, target); })
                .import;
      gl_source_ns_ += now_ns() - start;
    }
    if (!dst)
      return render_and_read_back(ctx, src, out, target, params);
    for (size_t p = 0; p < dst->size(); ++p)
      target.plane_textures[p] = (*dst)[p].textures()[0];
    target.imported = true;
    // The pass writes the memory without a map, which would have cleared
    // what the CPU backend's tag says of its borders (cpu_border_tag.hpp).
    for (guint m = 0; m < gst_buffer_n_memory(out); ++m)
      gst_ef_fd_memory_set_tag(gst_buffer_peek_memory(out, m), 0);
    return render_into(ctx, src, target, params);
  }

  Result<void> source_textures(GstBuffer *in, const FrameLayout &layout, SourceTextures &tex) {
    if (gst_is_gl_memory(gst_buffer_peek_memory(in, 0))) {
      // A producer on another context fenced its frame: the GPU waits for
      // it, the CPU does not (on this thread the call runs at once).
      if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(in))
        gst_gl_sync_meta_wait(sync, context_);
      return map_gl_textures(in, tex);
    }
    // Samples no texture format holds (NV12_10LE40) are unpacked on upload.
    if (GST_VIDEO_INFO_FORMAT(&texture_in_) != GST_VIDEO_INFO_FORMAT(&in_))
      return upload(in, tex);
    tex.import = src_importer_
                     .import(element_, in, layout,
                             [&] {
                               FrameLayout wide = layout;
                               wide.info.width = texture_in_.width;
                               return EglImport::create(context_, in, wide, texture_in_);
                             })
                     .import;
    if (tex.import) {
      tex.ids = tex.import->textures();
      return {};
    }
    declines_++;
    return upload(in, tex);
  }

  // The frame copied into textures of our pool (counted).
  Result<void> upload(GstBuffer *in, SourceTextures &tex) {
    if (!uploader_)
      uploader_ = std::make_unique<TextureUploader>(context_, texture_in_, texture_formats());
    auto buffer = uploader_->acquire();
    if (!buffer)
      return buffer.error();
    tex.uploaded.reset(*buffer);
    Result<void> copied;
    if (GST_VIDEO_INFO_FORMAT(&texture_in_) != GST_VIDEO_INFO_FORMAT(&in_))
      copied = copy_unpacked(in, *buffer);
    else if (texture_in_.width != in_.width)
      copied = copy_rows_whole(in, *buffer);
    else
      copied = uploader_->copy(in, *buffer);
    if (!copied)
      return copied;
    uploads_++;
    return map_gl_textures(*buffer, tex);
  }

  // Planar deep sources are R16 planes, which GStreamer 1.22's GstGL has
  // no format for (1.26 gives them the same); the rest GstGL's own.
  std::vector<GstGLFormat> texture_formats() const {
    const auto source = gl::source_layout(GST_VIDEO_INFO_FORMAT(&in_));
    if (!source || !source->deep || source->kind != gl::SourceKind::Planar)
      return {};
    return std::vector<GstGLFormat>(source->n_textures, GST_GL_R16);
  }

  // NV12_10LE40's samples into the P010 textures (texture_info).
  Result<void> copy_unpacked(GstBuffer *in, GstBuffer *texture) {
    GstVideoFrame src, dst;
    if (!gst_video_frame_map(&src, &in_, in, GST_MAP_READ))
      return Error{EIO, "Cannot read the input frame (closed or non-mappable fd?)"};
    if (!gst_video_frame_map(&dst, &texture_in_, texture, GST_MAP_WRITE)) {
      gst_video_frame_unmap(&src);
      return Error{EIO, "Cannot map a pooled texture"};
    }
    for (guint p = 0; p < 2; ++p) {
      // Plane 1 is U,V pairs: twice its component's width in samples.
      const gint samples = GST_VIDEO_INFO_COMP_WIDTH(&in_, p) * (p ? 2 : 1);
      for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&in_, p); ++y)
        unpack40(static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&src, p)) +
                     gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&src, p),
                 0,
                 reinterpret_cast<uint16_t *>(
                     static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&dst, p)) +
                     gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&dst, p)),
                 samples);
    }
    gst_video_frame_unmap(&dst);
    gst_video_frame_unmap(&src);
    return {};
  }

  // The frame into a texture one pixel wider (texture_info): every byte of
  // its rows, the padding pixel's V included, which gst_video_frame_copy
  // leaves out.
  Result<void> copy_rows_whole(GstBuffer *in, GstBuffer *texture) {
    GstVideoFrame src, dst;
    if (!gst_video_frame_map(&src, &in_, in, GST_MAP_READ))
      return Error{EIO, "Cannot read the input frame (closed or non-mappable fd?)"};
    if (!gst_video_frame_map(&dst, &texture_in_, texture, GST_MAP_WRITE)) {
      gst_video_frame_unmap(&src);
      return Error{EIO, "Cannot map a pooled texture"};
    }
    // A valid layout's rows hold the last pair whole (frame_layout checks).
    const gsize row = gsize(GST_VIDEO_INFO_WIDTH(&texture_in_)) * 2;
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&in_); ++y)
      std::memcpy(static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&dst, 0)) +
                      gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&dst, 0),
                  static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)) +
                      gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0),
                  row);
    gst_video_frame_unmap(&dst);
    gst_video_frame_unmap(&src);
    return {};
  }

  // Each plane of the output as an image of its own, the same fd at the
  // plane's offset: a planar output is then one draw into all of them (a
  // draw's colour attachments must be separate images).
  Result<PlaneImports> import_planes(GstBuffer *out, const FrameLayout &bytes,
                                     const ByteTarget &target) {
    PlaneImports imports;
    const guint height = GST_VIDEO_INFO_HEIGHT(&out_);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&out_); ++p) {
      FrameLayout plane = bytes;
      gst_video_info_set_format(&plane.info, target.video_format(), target.width(), height);
      plane.info.stride[0] = gint(target.stride);
      plane.planes[0].offset += target.offset[p];
      plane.planes[0].size = gsize(target.stride) * height;
      auto made = EglImport::create(context_, out, plane, plane.info);
      if (!made)
        return made.error();
      imports.push_back(std::move(made).value());
    }
    return imports;
  }

  // Logged once per backend: the caps make most misfits, and each frame of
  // them is counted as a decline and a read-back.
  bool fits_in_place(GstBuffer *out, const ByteTarget &target) {
    const std::string misfit = render_target_misfit(out, target, GST_VIDEO_INFO_N_PLANES(&out_),
                                                    guint(GST_VIDEO_INFO_HEIGHT(&out_)));
    if (misfit.empty())
      return true;
    if (!misfit_logged_) {
      misfit_logged_ = true;
      GST_INFO_OBJECT(element_, "output not rendered in place, read back instead: %s",
                      misfit.c_str());
    }
    return false;
  }

  // With gpu-timing, the timers' brackets hold the pass, and the
  // read-back's copy into its pack buffer, alone: GPU time, no CPU time
  // between the commands. Apart: the copy to system memory crosses the
  // bus, which the pass does not. Without it, no timer: the queries and
  // their results cost the GL thread time on a GPU that many contexts
  // share (NVIDIA H200, 16 decoders: twice the GL thread's time a frame).
  GpuTimer *timer(GstGLContext *ctx, std::unique_ptr<GpuTimer> &which) {
    if (!gpu_timing_)
      return nullptr;
    if (!which)
      which = std::make_unique<GpuTimer>(ctx);
    return which.get();
  }

  // Runs `commands` with `which` timer around them; their GL-thread time
  // into `stage`.
  template <typename F>
  Result<void> timed(GstGLContext *ctx, std::unique_ptr<GpuTimer> &which,
                     std::atomic<uint64_t> &stage, F &&commands) {
    GpuTimer *t = timer(ctx, which);
    if (t)
      t->begin();
    const uint64_t start = now_ns();
    Result<void> result = commands();
    stage += now_ns() - start;
    if (t) {
      t->end();
      t->collect(false);
    }
    return result;
  }

  // A pass GL refused wrote nothing: the frame fails (a bad frame), none
  // goes on.
  Result<void> timed_pass(GstGLContext *ctx, const std::function<Result<void>()> &pass) {
    return timed(ctx, timer_, gl_pass_ns_, [&] {
      Result<void> done = pass();
      return done ? check_gl_errors(ctx, "the frame's pass") : done;
    });
  }

  // Into the output's own memory: the frame is in flight behind a fence,
  // completed by the thread that pushes it (it goes downstream, maybe to
  // the CPU, once that returns).
  Result<void> render_into(GstGLContext *ctx, const SourceTextures &src, const ByteTarget &target,
                           const ConvertParams &params) {
    auto result =
        timed_pass(ctx, [&] { return converter_->render_bytes(src.ids, target, params); });
    if (!result)
      return result;
    const uint64_t start = now_ns();
    result = readback_->start_in_place();
    gl_readback_ns_ += now_ns() - start;
    return result;
  }

  // Rendered apart, then read back without waiting: `out` stays in flight
  // until complete_oldest() copies its bytes in. Planes of four-byte texels
  // are rendered in one pass into scratch textures of their own (the source
  // sampled once for all of them) and read back each to its offset; else
  // the frame is one scratch texture of all its rows, padding included.
  Result<void> render_and_read_back(GstGLContext *ctx, const SourceTextures &src, GstBuffer *out,
                                    const ByteTarget &target, const ConvertParams &params) {
    declines_++;
    const guint n_planes = GST_VIDEO_INFO_N_PLANES(&out_);
    const bool apart = n_planes > 1 && target.texel_bytes == 4;
    const guint rows = apart ? guint(GST_VIDEO_INFO_HEIGHT(&out_)) : target.rows;
    ScratchSet *set = scratch_for_frame(ctx, target, apart ? n_planes : 1, rows);
    if (!set)
      return Error{EIO, "cannot make the scratch render target"};
    const size_t bytes = size_t(target.stride) * target.rows;
    if (gst_buffer_get_size(out) < bytes)
      return Error{EINVAL, "the output buffer is smaller than its rows"};
    ByteTarget scratch = target;
    std::array<ReadbackRing::Region, GST_VIDEO_MAX_PLANES> regions{};
    const guint n_regions = apart ? n_planes : 1;
    for (guint p = 0; p < n_regions; ++p) {
      (apart ? scratch.plane_textures[p] : scratch.texture) = set->textures[p];
      regions[p] = {set->textures[p],
                    target.width(),
                    rows,
                    target.gl_format(),
                    apart ? target.offset[p] : 0,
                    size_t(target.stride) * rows};
    }
    auto result =
        timed_pass(ctx, [&] { return converter_->render_bytes(src.ids, scratch, params); });
    if (!result)
      return result;
    gsize into_base = 0;
    const unsigned into =
        gst_buffer_n_memory(out) == 1
            ? gl_pack_memory_buffer(gst_buffer_peek_memory(out, 0), context_, &into_base)
            : 0;
    const std::span<const ReadbackRing::Region> read{regions.data(), n_regions};
    set->frame = readback_->next_sequence();
    set->used = true;
    result = timed(ctx, readback_timer_, gl_readback_ns_, [&] {
      return into ? readback_->start_into(into, into_base, read, bytes)
                  : readback_->start(read, bytes);
    });
    // While here: frames done earlier need no wait to complete.
    const uint64_t start = now_ns();
    readback_->poll();
    gl_readback_ns_ += now_ns() - start;
    return result;
  }

  // GL memory out (RGBA family): pixels into the pooled texture, which stays
  // on the GPU for the GL elements downstream. A consumer on another
  // context that asked for GstGLSyncMeta finds a fence in it (its GPU
  // waits, no CPU does); on this context the command stream orders it.
  Result<void> render_texture(GstGLContext *ctx, const SourceTextures &src, GstBuffer *out,
                              const ConvertParams &params) {
    GstMemory *mem = gst_buffer_peek_memory(out, 0);
    GstMapInfo map;
    if (!gst_memory_map(mem, &map, GstMapFlags(GST_MAP_WRITE | GST_MAP_GL)))
      return Error{EIO, "cannot map the output texture for GL"};
    const guint texture = *reinterpret_cast<guint *>(map.data);
    auto result =
        timed_pass(ctx, [&] { return converter_->render_pixels(src.ids, texture, params); });
    gst_memory_unmap(mem, &map);
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(out); sync && result)
      gst_gl_sync_meta_set_sync_point(sync, context_);
    // Submitted now: the GPU starts on it while the GL thread serves other
    // elements (and llvmpipe, whose unsubmitted frame holds this element's
    // timer queries, would wait for all of it when one is reused).
    // EF_GL_FLUSH=off leaves it to the next flush on the context
    // (diagnostics: one submission a frame fewer).
    if (flush_gl_output_) {
      const uint64_t start = now_ns();
      ctx->gl_vtable->Flush();
      gl_readback_ns_ += now_ns() - start;
    }
    return result;
  }

  // A tensor (gl_tensor_output.hpp): the pass into the output's GL buffer,
  // or into scratch or a pack buffer, then the GPU's copy (timed as the
  // read-back) or a fence for the ring. A GL-buffer output stays on the
  // GPU: fenced for a consumer on another context that asked for
  // GstGLSyncMeta, and submitted now.
  Result<void> render_tensor(GstGLContext *ctx, const SourceTextures &src, GstBuffer *out,
                             const ConvertParams &params) {
    if (!tensor_)
      tensor_ = std::make_unique<GlTensorOutput>(ctx, *tensor_spec_, hardware_);
    auto target = tensor_->begin(out, *readback_);
    Result<void> result = target ? Result<void>() : Result<void>(target.error());
    if (result)
      result = timed_pass(ctx, [&] { return converter_->render_tensor(src.ids, *target, params); });
    // The GPU's copy is the read-back's GPU time; either way, the
    // GL-thread time of delivering is the read-back stage's.
    if (result && tensor_->copies()) {
      result = timed(ctx, readback_timer_, gl_readback_ns_,
                     [&] { return tensor_->deliver(*readback_); });
    } else if (result) {
      const uint64_t start = now_ns();
      result = tensor_->deliver(*readback_);
      gl_readback_ns_ += now_ns() - start;
    }
    tensor_->end();
    if (GstGLSyncMeta *sync = gst_buffer_get_gl_sync_meta(out); sync && result)
      gst_gl_sync_meta_set_sync_point(sync, context_);
    ctx->gl_vtable->Flush();
    readback_->poll();
    return result;
  }

  // Sets of `count` textures of width() x `rows` texels. The texel format
  // follows from the stride, so stride, rows and count key them. GL thread.
  struct ScratchSet {
    std::array<guint, 3> textures{};
    uint64_t frame = 0;  // the read-back that reads them (ReadbackRing sequence)
    bool used = false;
  };

  // A set no read-back in flight reads: a free one, else a new one while
  // fewer than max_scratch_, else the one read longest ago.
  ScratchSet *scratch_for_frame(GstGLContext *ctx, const ByteTarget &t, guint count, guint rows) {
    if (scratch_stride_ != t.stride || scratch_rows_ != rows || scratch_count_ != count) {
      delete_scratch(ctx);
      scratch_stride_ = t.stride;
      scratch_rows_ = rows;
      scratch_count_ = count;
    }
    ScratchSet *oldest = nullptr;
    for (ScratchSet &set : scratch_) {
      if (!set.used || readback_->done(set.frame))
        return &set;
      if (!oldest || set.frame < oldest->frame)
        oldest = &set;
    }
    if (oldest && scratch_.size() >= max_scratch_)
      return oldest;
    ScratchSet set;
    const GstGLFuncs *gl = ctx->gl_vtable;
    gl->GenTextures(GLsizei(count), set.textures.data());
    if (!set.textures[0])
      return nullptr;
    // Zeroed: the pass writes visible bytes only, and the padding is read
    // back too.
    std::vector<guint8> zeros(size_t(t.stride) * rows, 0);
    gl->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    for (guint i = 0; i < count; ++i) {
      gl->BindTexture(GL_TEXTURE_2D, set.textures[i]);
      allocate_texture_2d(ctx, t.gl_internal_format(), t.gl_format(), gint(t.width()), gint(rows),
                          zeros.data());
    }
    gl->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl->BindTexture(GL_TEXTURE_2D, 0);
    scratch_.push_back(set);
    return &scratch_.back();
  }

  void delete_scratch(GstGLContext *ctx) {
    for (ScratchSet &set : scratch_)
      ctx->gl_vtable->DeleteTextures(GLsizei(scratch_count_), set.textures.data());
    scratch_.clear();
  }

  GstElement *element_;
  bool hardware_;
  bool gpu_timing_;
  GstGLContext *context_;
  GlThreadPort port_;  // every hand-over of a frame, allocating nothing
  GstVideoInfo in_, out_;
  GstVideoInfo texture_in_;                 // the source textures we make (texture_info)
  std::optional<TensorSpec> tensor_spec_;   // a tensor output, else an image (out_)
  std::unique_ptr<GlTensorOutput> tensor_;  // made and used on the GL thread
  std::unique_ptr<GlConverter> converter_;
  ImportCache<EglImport> src_cache_;
  ImportCache<PlaneImports> dst_cache_;
  FrameImporter<EglImport> src_importer_;
  FrameImporter<PlaneImports> dst_importer_;
  std::unique_ptr<TextureUploader> uploader_;
  std::vector<ScratchSet> scratch_;  // render targets of the read-back path (GL thread)
  size_t max_scratch_;
  guint scratch_count_ = 0, scratch_stride_ = 0, scratch_rows_ = 0;
  const bool flush_gl_output_ =
      !g_getenv("EF_GL_FLUSH") || std::strcmp(g_getenv("EF_GL_FLUSH"), "off") != 0;
  // Made and used on the GL thread; the timer's totals are read from any.
  std::unique_ptr<ReadbackRing> readback_;
  std::unique_ptr<GpuTimer> timer_, readback_timer_;
  // Frames in flight, oldest first (streaming thread): the output (the
  // element holds it) and a reference on the input the pass samples.
  struct InFlight {
    GstBuffer *out;
    BufferPtr in;
  };
  Fifo<InFlight> flight_;
  std::atomic<uint64_t> uploads_{0}, readbacks_{0}, declines_{0}, bytes_read_{0};
  // Hand-overs to the GL thread, time spent there, of it waiting for the
  // GPU, and the streaming thread's waits for the GPU.
  std::atomic<uint64_t> gl_wait_ns_{0}, gpu_wait_ns_{0};
  // Of the port's thread_ns(): the source's textures, the pass, the read-back.
  std::atomic<uint64_t> gl_source_ns_{0}, gl_pass_ns_{0}, gl_readback_ns_{0};
  bool misfit_logged_ = false;  // streaming thread
};

}  // namespace

Result<std::unique_ptr<ConvertBackend>> make_gl_backend(GstElement *element, GstGLContext *context,
                                                        const GstVideoInfo &in,
                                                        const OutputSpec &out,
                                                        const GlBackendOptions &options) {
  const bool compute = options.compute;
  struct Create {
    const GstVideoInfo *in;
    const OutputSpec *out;
    bool compute;
    std::optional<Result<std::unique_ptr<GlConverter>>> result;
  } create{&in, &out, compute, std::nullopt};
  gst_gl_context_thread_add(
      context,
      [](GstGLContext *ctx, gpointer data) {
        auto *c = static_cast<Create *>(data);
        if (const TensorSpec *tensor = c->out->tensor())
          c->result = GlConverter::create_tensor(ctx, *c->in, *tensor);
        else
          c->result = GlConverter::create(ctx, *c->in, *c->out->image(),
                                          c->compute ? PassStage::Compute : PassStage::Fragment);
      },
      &create);
  if (!*create.result)
    return create.result->error();
  if (compute && (*create.result).value()->stage() != PassStage::Compute)
    GST_INFO_OBJECT(element,
                    "the GL context has no compute shaders (GL 4.3, GLES 3.1): "
                    "the pass is a fragment shader");
  GstVideoInfo image;
  if (const GstVideoInfo *info = out.image())
    image = *info;
  else
    gst_video_info_set_format(&image, GST_VIDEO_FORMAT_RGB, guint(out.width()),
                              guint(out.height()));
  const std::optional<TensorSpec> tensor =
      out.tensor() ? std::optional<TensorSpec>(*out.tensor()) : std::nullopt;
  return std::unique_ptr<ConvertBackend>(std::make_unique<GlBackend>(
      element, context, in, image, tensor, std::move(*create.result).value(), options));
}

}  // namespace ef::gst
