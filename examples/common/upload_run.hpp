// SPDX-License-Identifier: LGPL-2.1-or-later
// One run of  appsrc (a MemfdRing) ! ELEMENT ! fakesink,  measured from
// outside the element, so that efupload and stock glupload are measured the
// same way: what its output frames show (an EGLImage imported for them, one
// imported earlier, or pixels copied into a texture) and the CPU time the
// element costs. Shared by the memfd-ring demo and tests/bench/bench_upload;
// docs/BENCHMARKS.md ("efupload against glupload") says what each figure is.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "memfd_ring.hpp"

namespace ef::examples {

// Sets what these programs need where the environment does not say
// otherwise (headless GL on an EGL device, the build tree's ef plugin), then
// calls gst_init().
void init_gstreamer(int *argc, char ***argv);

struct RunConfig {
  // "efupload", "glupload", or "identity": the same pipeline without an
  // upload, the baseline whose process CPU time the others are compared with.
  std::string element = "efupload";
  Wrap wrap = Wrap::Stable;
  GstVideoFormat format = GST_VIDEO_FORMAT_NV12;
  guint width = 1920;
  guint height = 1080;
  guint slots = 4;
  // Frames before the measured window: negotiation, GL context creation and
  // the first import of each slot happen there.
  guint warmup = 30;
  guint frames = 300;  // measured frames, after the warm-up
  // Where the program counts heap allocations (tests/bench/alloc_count):
  // those made so far by the calling thread, and by every thread.
  uint64_t (*thread_allocations)() = nullptr;
  uint64_t (*process_allocations)() = nullptr;
};

// What the element's output frames showed.
struct OutputCounts {
  uint64_t frames = 0;
  uint64_t imported = 0;      // with at least one EGLImage not seen before: imported for this frame
  uint64_t reused = 0;        // only EGLImages seen before: served by a cache
  uint64_t copied = 0;        // GL textures without an EGLImage: the pixels were uploaded
  uint64_t egl_images = 0;    // EGLImages not seen before (NV12: one per plane)
  uint64_t bytes_copied = 0;  // copied x the frame's size
};

struct RunResult {
  std::string error;                  // empty when the run completed
  std::vector<std::string> warnings;  // WARNING messages posted by the pipeline
  std::string method;                 // glupload: the upload method its log named for frame 0
  OutputCounts total;                 // all frames
  OutputCounts window;                // the measured frames
  // CPU time over the measured frames, summed (ns):
  uint64_t chain_cpu_ns = 0;    // the streaming thread from the element's sink pad to its src pad
  uint64_t release_cpu_ns = 0;  // dropping the last reference to each output frame
  uint64_t gl_cpu_ns = 0;       // the element's GL context thread
  uint64_t process_cpu_ns = 0;  // every thread of the process
  uint64_t unmeasured_releases = 0;  // output frames still referenced elsewhere: should be 0
  // Heap allocations over the measured frames, summed, where counted:
  uint64_t chain_allocations = 0;    // the streaming thread from sink pad to src pad
  uint64_t release_allocations = 0;  // dropping the last reference to each output frame
  uint64_t process_allocations = 0;  // every thread of the process
  // The element's own counters where it has them (efupload's "stats"):
  std::map<std::string, uint64_t> stats_total;   // as posted on EOS
  std::map<std::string, uint64_t> stats_window;  // their change over the measured frames

  // What the upload costs per measured frame, wherever it spends it (ns).
  double upload_cpu_ns_per_frame() const {
    return double(chain_cpu_ns + release_cpu_ns + gl_cpu_ns) / double(window.frames);
  }
};

RunResult run_upload(const RunConfig &config);

// The guint64 fields of an element's "stats" structure (ef's elements keep
// their counters there); empty for an element without one.
std::map<std::string, uint64_t> element_stats(GstElement *element);

// "ELEMENT: message (debug details)" of an ERROR or WARNING bus message.
std::string message_text(GstMessage *message);

}  // namespace ef::examples
