// SPDX-License-Identifier: LGPL-2.1-or-later
// A conversion backend of efconvert: made for one pair of caps, used for
// every frame until the caps change. Its registry entry
// (backend_registry.hpp) says what it makes and makes it.
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <string>

#include "common/frame_layout.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"
#include "ef/result.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);

namespace ef::gst {

// What a backend counted: the zero-copy paths (source and destination
// imports) and every copy it had to make instead.
struct BackendStats {
  uint64_t src_hits = 0, src_misses = 0, dst_hits = 0, dst_misses = 0;
  uint64_t uploads = 0, readbacks = 0, declines = 0, refusals = 0;
  uint64_t bytes_read = 0;                   // read back from the GPU into plain memory
  uint64_t gpu_time_ns = 0, gpu_frames = 0;  // GPU time of the frames timed, and how many
  uint64_t readback_gpu_ns = 0;              // GPU time of the read-backs' copies
  // The GL thread, which every element of a context shares: hand-overs to
  // it, time spent there, of it waiting for the GPU; and the streaming
  // thread's waits for the GPU (frames the consumer needs).
  uint64_t gl_handovers = 0, gl_thread_ns = 0, gl_wait_ns = 0, gpu_wait_ns = 0;
  // Of gl_thread_ns: making the source's textures ready, the pass's
  // commands, and the read-back's commands with the frame's fence.
  uint64_t gl_source_ns = 0, gl_pass_ns = 0, gl_readback_ns = 0;
  // Tensors whose border rows were left as the last write into the same
  // memory made them (CPU backend).
  uint64_t borders_kept = 0;
};

inline BackendStats operator+(BackendStats a, const BackendStats &b) {
  a.src_hits += b.src_hits;
  a.src_misses += b.src_misses;
  a.dst_hits += b.dst_hits;
  a.dst_misses += b.dst_misses;
  a.uploads += b.uploads;
  a.readbacks += b.readbacks;
  a.declines += b.declines;
  a.refusals += b.refusals;
  a.bytes_read += b.bytes_read;
  a.gpu_time_ns += b.gpu_time_ns;
  a.gpu_frames += b.gpu_frames;
  a.readback_gpu_ns += b.readback_gpu_ns;
  a.gl_handovers += b.gl_handovers;
  a.gl_thread_ns += b.gl_thread_ns;
  a.gl_wait_ns += b.gl_wait_ns;
  a.gpu_wait_ns += b.gpu_wait_ns;
  a.gl_source_ns += b.gl_source_ns;
  a.gl_pass_ns += b.gl_pass_ns;
  a.gl_readback_ns += b.gl_readback_ns;
  a.borders_kept += b.borders_kept;
  return a;
}

class ConvertBackend {
 public:
  virtual ~ConvertBackend() = default;
  virtual const char *name() const = 0;
  // Converts `in`, whose planes lie as `layout` says (validated), into `out`.
  virtual Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                               const ConvertParams &params) = 0;
  virtual BackendStats stats() const { return {}; }
  // Why backend=auto runs this backend, where the backend itself decided
  // (a timed trial); empty otherwise.
  virtual std::string reason() const { return {}; }
  // The GL pass's shader stage ("compute", "fragment"), "none" off GL.
  virtual const char *gl_shader() const { return "none"; }
  // The allocator of the plain-memory outputs this backend writes best, in
  // place of fd-backed memory and of a plain system-memory pool downstream
  // offers (a new reference), or nullptr.
  virtual GstAllocator *output_allocator() { return nullptr; }
  // cache-capacity, from the next lookup on: a smaller one evicts the least
  // recently used entries of every cache now. Any thread.
  virtual void set_cache_capacity(uint32_t capacity) = 0;

  // Pipelined read-back. convert() may return with the bytes of `out` still
  // on their way from the GPU; in_flight() counts such outputs, and
  // complete_oldest() waits for the oldest one, writes its bytes into the
  // buffer convert() was given and returns that buffer (the caller holds
  // it: it must stay alive and unmapped while in flight). drop_in_flight()
  // forgets them all (a flush). Backends that finish every frame inside
  // convert() keep these defaults.
  virtual size_t in_flight() const { return 0; }
  virtual Result<GstBuffer *> complete_oldest() { return Error{EINVAL, "no frame in flight"}; }
  virtual void drop_in_flight() {}
  // Brings the statistics up to date with GPU work already submitted
  // (timer queries whose results arrive frames later).
  virtual void sync_stats() {}
};

}  // namespace ef::gst
