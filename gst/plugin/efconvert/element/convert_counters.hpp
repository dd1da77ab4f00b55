// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's counters, declared once: ElementStats makes the efconvert-stats
// structure (the "stats" property, the EOS message) from this table.
#pragma once

#include <array>

#include "common/element_stats.hpp"

namespace ef::gst {

struct ConvertCounters {
  enum Counter : guint {
    kFrames,
    kSrcHits,
    kSrcMisses,
    kDstHits,
    kDstMisses,
    kUploads,
    kReadbacks,
    kDeclines,
    kRefusals,
    kDropped,
    kBytesRead,
    kGpuTimeNs,
    kGpuFrames,
    kReadbackGpuNs,
    kGlHandovers,
    kGlThreadNs,
    kGlWaitNs,
    kGpuWaitNs,
    kGlSourceNs,
    kGlPassNs,
    kGlReadbackNs,
    kBordersKept,
    kCount,
  };
  static constexpr const char *kName = "efconvert-stats";
  static constexpr std::array<CounterSpec, kCount> kSpecs = {{
      {kFrames, "frames", "Frames converted"},
      {kSrcHits, "src-hits",
       "Sources served from the cache: EGLImages (GL), mappings of memfds (CPU)"},
      {kSrcMisses, "src-misses", "Sources imported (GL) or mapped (CPU) anew"},
      {kDstHits, "dst-hits", "Destination render targets served from the cache (GL backend)"},
      {kDstMisses, "dst-misses", "Destination render targets imported (GL backend)"},
      {kUploads, "uploads", "Frames copied into textures because they could not be imported"},
      {kReadbacks, "readbacks", "Frames read back from the GPU into plain system memory"},
      {kDeclines, "declines", "Frames not imported (system memory, refused or failed import)"},
      {kRefusals, "refusals", "Cache lookups refused because an identity no longer matched"},
      {kDropped, "dropped", "Bad input frames dropped with a warning (see max-errors)"},
      {kBytesRead, "bytes-read", "Bytes read back from the GPU into plain system memory"},
      {kGpuTimeNs, "gpu-time-ns",
       "GPU time of the GL backend's conversion passes, from GL timer queries (gpu-timing=true), "
       "summed over gpu-frames frames; 0 without gpu-timing or where the GL has no timer "
       "queries"},
      {kGpuFrames, "gpu-frames", "Frames whose GPU time is in gpu-time-ns"},
      {kReadbackGpuNs, "readback-gpu-time-ns",
       "GPU time of the read-backs' copies from the rendered textures into pack buffers (for "
       "system-memory outputs: the transfer towards the CPU), from GL timer queries "
       "(gpu-timing=true)"},
      {kGlHandovers, "gl-handovers",
       "Hand-overs of work to the GL context's thread by the GL backend: one a frame, another "
       "where a read-back is completed there"},
      {kGlThreadNs, "gl-thread-ns",
       "Time the GL context's thread spent on this element's work: elements sharing a context "
       "share that thread"},
      {kGlWaitNs, "gl-wait-ns",
       "Time of gl-thread-ns the GL thread waited for the GPU to finish this element's frames "
       "(where fences cannot be waited for on other threads), every other element's work "
       "waiting behind it"},
      {kGpuWaitNs, "gpu-wait-ns",
       "Time the streaming thread waited for the GPU to finish a frame that was to be pushed"},
      {kGlSourceNs, "gl-source-ns",
       "Time of gl-thread-ns spent making the input's textures ready: GL memory mapped for GL "
       "(which uploads a decoder's pixel buffer into its texture, and waits where the driver "
       "does), imports, uploads of system memory"},
      {kGlPassNs, "gl-pass-ns", "Time of gl-thread-ns spent issuing the conversion pass"},
      {kGlReadbackNs, "gl-readback-ns",
       "Time of gl-thread-ns spent issuing read-backs and the frames' fences and flushes"},
      {kBordersKept, "borders-kept",
       "Letterboxed tensors whose border rows were left as the CPU backend's last write into the "
       "same pooled memory made them: nothing mapped that memory for writing since"},
  }};
};
using ConvertStats = ElementStats<ConvertCounters>;

}  // namespace ef::gst
