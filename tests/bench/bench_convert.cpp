// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert against the stock ways of turning a 1080p NV12 frame into a
// 640x640 model input, RGB letterboxed and planar RGBP, side by side in one
// run: efconvert's CPU backend (all cores, all threads pinned to one CPU,
// and n-threads 1, 2, 4, 8 and 16), its GL backend, videoconvert !
// videoscale, the GstGL chain on llvmpipe, and libyuv called in a loop
// without GStreamer (the best this machine can do). Then 4K (3840x2160)
// NV12 to 1280x1280 through efconvert's CPU backend at those thread counts,
// where memory bandwidth should bind: its bytes read and written per second
// against a memcpy of the same bytes on as many threads, in the same run
// (gb_per_s). docs/BENCHMARKS.md ("efconvert") states the targets, what
// each figure measures and the figures measured; scripts/bench.sh runs this
// and plots it with plot_convert.py.
//
// One iteration is one run of  appsrc ! CASE ! OUTPUT CAPS ! fakesink  fed
// from a ring of memfd frames, then of  appsrc ! fakesink  alone, whose cost
// per frame is subtracted. Its manual time is the net wall-clock time per
// frame; the counters add the net process CPU time per frame and the gross
// figures. The libyuv loop has no source to subtract. efconvert cpu's last
// output of the window is compared with the libyuv loop's output of the same
// frame (libyuv_max_diff: 0 when they did the same work).
//
//   bench_convert [Google Benchmark options]
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <libyuv.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "alloc_count.hpp"
#include "efconvert/backends/cpu/cpu_box.hpp"
#include "efconvert/backends/cpu/cpu_pool.hpp"
#include "efconvert/output/output_pool.hpp"
#include "memfd_ring.hpp"
#include "upload_run.hpp"

using namespace ef::examples;

namespace {

constexpr int kInWidth = 1920, kInHeight = 1080, kOut = 640;
// Letterbox geometry of 16:9 into a square: full width, centred rows.
constexpr int kContentHeight = kOut * kInHeight / kInWidth;  // 360
constexpr int kTop = (kOut - kContentHeight) / 2;            // 140
constexpr guint kSlots = 4;

// The measured window: after the warm-up (negotiation, GL context and
// shaders, the first import of each slot), at least `frames` frames and
// `seconds` of wall-clock time, so that a 0.3 ms case is timed over enough
// frames and a 40 ms one does not run for minutes.
struct Limits {
  uint64_t warmup;
  uint64_t frames;
  double seconds;
};
constexpr Limits kCaseLimits{12, 30, 1.0};
// appsrc ! fakesink costs microseconds a frame: a short window is enough.
constexpr Limits kSourceLimits{12, 300, 0.15};

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

// Wall-clock and process CPU time (every thread: the element's helpers,
// GstGL's thread, llvmpipe's rasterizer threads) over the measured frames.
class Window {
 public:
  explicit Window(const Limits &limits) : limits_(limits) {}

  // Called as each frame is done; true once the window is complete.
  bool frame_done() {
    const uint64_t n = ++done_;
    if (n == limits_.warmup) {
      wall_start_ = clock_ns(CLOCK_MONOTONIC);
      cpu_start_ = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
      return false;
    }
    if (n <= limits_.warmup || frames)
      return frames != 0;
    const uint64_t wall = clock_ns(CLOCK_MONOTONIC) - wall_start_;
    if (n - limits_.warmup < limits_.frames || double(wall) < limits_.seconds * 1e9)
      return false;
    cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start_;
    wall_ns = wall;
    frames = n - limits_.warmup;
    return true;
  }
  bool started() const { return done_ >= limits_.warmup; }
  uint64_t warmup() const { return limits_.warmup; }

  uint64_t frames = 0;  // 0 until complete
  uint64_t wall_ns = 0;
  uint64_t cpu_ns = 0;

 private:
  const Limits limits_;
  uint64_t done_ = 0;
  uint64_t wall_start_ = 0, cpu_start_ = 0;
};

struct Measured {
  std::string error;    // empty when the run completed
  std::string backend;  // efconvert's backend-in-use during the window
  uint64_t frames = 0;
  double wall_ns = 0;  // per frame
  double cpu_ns = 0;   // per frame
  // Change of efconvert's counters over the window, per frame.
  std::map<std::string, double> stats;
  // The last frame's largest byte difference from the libyuv loop's output
  // of the same input, where asked for (-1: not compared).
  int libyuv_difference = -1;
  // Heap allocations in efconvert's chain per frame of the window (-1: no
  // efconvert in the case).
  double allocs_per_frame = -1;
};

// efconvert's counters that say whether a frame was imported or copied.
constexpr const char *kStats[] = {"src-misses", "src-hits",  "dst-misses", "dst-hits",
                                  "uploads",    "readbacks", "declines"};

Measured per_frame(const Window &w) {
  Measured m;
  m.frames = w.frames;
  m.wall_ns = double(w.wall_ns) / double(w.frames);
  m.cpu_ns = double(w.cpu_ns) / double(w.frames);
  return m;
}

#if !defined(__aarch64__) && !defined(__arm__)
// libyuv's BT.709 limited-range tables with the blue coefficient its build
// caps at 128 restored to round(2.112 * 64) = 135, as efconvert does
// (cpu_range.cpp, row.h's Intel layout): the same kernels at the same cost
// as libyuv's own table, and the same bytes as efconvert writes.
struct Bt709 {
  Bt709() : uv(libyuv::kYuvH709Constants), vu(libyuv::kYvuH709Constants) {
    for (size_t i = 0; i < sizeof uv.kUVToB; i += 2)
      uv.kUVToB[i] = vu.kUVToR[i + 1] = 135;
  }
  alignas(64) libyuv::YuvConstants uv;
  alignas(64) libyuv::YuvConstants vu;
};
#else
struct Bt709 {
  const libyuv::YuvConstants &uv = libyuv::kYuvH709Constants;
  const libyuv::YuvConstants &vu = libyuv::kYvuH709Constants;
};
#endif

// The limit on this machine: libyuv's own calls on one thread, no GStreamer,
// input and output mapped once, one output buffer (so it stays in cache).
// The output is the whole 640x640 frame, borders included, R, G, B in
// memory (RGB) or planes R, G, B (RGBP).
class LibyuvLetterbox {
 public:
  explicit LibyuvLetterbox(GstVideoFormat format)
      : planar_(format == GST_VIDEO_FORMAT_RGBP),
        scaled_y_(size_t(kOut) * kContentHeight),
        scaled_u_(size_t(kOut) * kContentHeight),
        scaled_v_(size_t(kOut) * kContentHeight),
        strip_(planar_ ? size_t(kOut) * 4 * kStripRows : 0),
        alpha_(planar_ ? size_t(kOut) : 0),
        out_(size_t(kOut) * kOut * 3) {}

  void convert(const GstVideoFrame &src) {
    // efconvert's kernels for exactly 3 (luma) and 1.5 (chroma, to the
    // output's full resolution): libyuv's bilinear samples one pixel in
    // three at 3:1 (it aliases) and runs in C from 1.5x. The chroma is
    // cosited across, as the frames' caps say (1080p: chroma-site mpeg2).
    ef::gst::cpu::box3_plane(static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)),
                             GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0), scaled_y_.data(), kOut, kOut,
                             kContentHeight);
    if (!cosited_)
      cosited_ = cosited_as_sent(src.info);
    ef::gst::cpu::box32_uv(static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 1)),
                           GST_VIDEO_FRAME_PLANE_STRIDE(&src, 1), scaled_u_.data(), kOut,
                           scaled_v_.data(), kOut, kOut / 2, kContentHeight / 2, *cosited_);
    if (!planar_) {
      // GStreamer's RGB is R, G, B in memory, which libyuv calls RAW: the
      // RGB24 call with U and V swapped and the U/V-swapped constants.
      libyuv::I444ToRGB24Matrix(scaled_y_.data(), kOut, scaled_v_.data(), kOut, scaled_u_.data(),
                                kOut, out_.data() + size_t(kTop) * kOut * 3, kOut * 3, &bt709_.vu,
                                kOut, kContentHeight);
      fill_borders(out_.data(), kOut * 3);
      return;
    }
    // ARGB strips few enough rows to stay in cache, each split into the
    // planes: faster than a whole RGB24 image and SplitRGBPlane. The alpha
    // goes to a scratch row, as efconvert's (libyuv's split without one
    // overruns its temporary at some widths).
    uint8_t *plane[3];
    for (int p = 0; p < 3; ++p)
      plane[p] = out_.data() + size_t(p) * kOut * kOut;
    for (int r = 0; r < kContentHeight; r += kStripRows) {
      const int rows = std::min(kStripRows, kContentHeight - r);
      const size_t at = size_t(r) * kOut;
      libyuv::I444ToARGBMatrix(scaled_y_.data() + at, kOut, scaled_u_.data() + at, kOut,
                               scaled_v_.data() + at, kOut, strip_.data(), kOut * 4, &bt709_.uv,
                               kOut, rows);
      // libyuv's ARGB is B, G, R, A in memory; its "r" plane is byte 2.
      const size_t to = size_t(kTop + r) * kOut;
      libyuv::SplitARGBPlane(strip_.data(), kOut * 4, plane[0] + to, kOut, plane[1] + to, kOut,
                             plane[2] + to, kOut, alpha_.data(), 0, kOut, rows);
    }
    for (uint8_t *p : plane)
      fill_borders(p, kOut);
  }

  // The largest difference of any byte of `frame` (640x640 RGB or RGBP)
  // from this loop's last output.
  int max_difference(const GstVideoFrame &frame) const {
    int most = 0;
    const int row_bytes = planar_ ? kOut : kOut * 3;
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p)
      for (int y = 0; y < kOut; ++y) {
        const auto *theirs = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, p)) +
                             ptrdiff_t(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        const uint8_t *ours = out_.data() + (size_t(p) * kOut + y) * row_bytes;
        for (int b = 0; b < row_bytes; ++b)
          most = std::max(most, std::abs(int(theirs[b]) - int(ours[b])));
      }
    return most;
  }

 private:
  static constexpr int kStripRows = 16;  // efconvert's

  // Black, efconvert's default fill-color and videoscale's border colour.
  static void fill_borders(uint8_t *image, int stride) {
    std::memset(image, 0, size_t(kTop) * stride);
    std::memset(image + size_t(kTop + kContentHeight) * stride, 0,
                size_t(kOut - kTop - kContentHeight) * stride);
  }

  // Whether chroma is cosited across as efconvert reads the caps made of
  // `info` (GStreamer 1.26 leaves chroma-site out of 1080p caps and reads
  // mpeg2 back, where the info itself said unknown).
  static bool cosited_as_sent(const GstVideoInfo &info) {
    GstCaps *caps = gst_video_info_to_caps(&info);
    GstVideoInfo read;
    const bool ok = gst_video_info_from_caps(&read, caps);
    gst_caps_unref(caps);
    return ok && (read.chroma_site & GST_VIDEO_CHROMA_SITE_H_COSITED);
  }

  const bool planar_;
  std::optional<bool> cosited_;
  const Bt709 bt709_;
  std::vector<uint8_t> scaled_y_, scaled_u_, scaled_v_, strip_, alpha_, out_;
};

// The largest byte difference between `out` (caps `caps`), efconvert's
// output of stream frame `n`, and the libyuv loop's output of that frame;
// -1 where either cannot be read.
int difference_from_libyuv(MemfdRing &ring, uint64_t n, GstBuffer *out, GstCaps *caps) {
  GstVideoInfo out_info;
  if (!gst_video_info_from_caps(&out_info, caps))
    return -1;
  GstBuffer *in = ring.frame(n, Wrap::Stable);
  GstVideoFrame src, dst;
  int difference = -1;
  if (gst_video_frame_map(&src, &ring.info(), in, GST_MAP_READ)) {
    if (gst_video_frame_map(&dst, &out_info, out, GST_MAP_READ)) {
      LibyuvLetterbox letterbox(GST_VIDEO_INFO_FORMAT(&out_info));
      letterbox.convert(src);
      difference = letterbox.max_difference(dst);
      gst_video_frame_unmap(&dst);
    }
    gst_video_frame_unmap(&src);
  }
  gst_buffer_unref(in);
  return difference;
}

// One pipeline run. The pipeline has no queue, so appsrc's streaming thread
// carries each frame through every element to fakesink before taking the
// next: the wall-clock time per frame is the whole chain's latency. appsrc
// asks for each frame (need-data) and is handed the slot's stable buffer.
class PipelineRun {
 public:
  // With compare, the window's last output is compared with the libyuv
  // loop's output of the same input frame.
  PipelineRun(MemfdRing &ring, const Limits &limits, bool compare = false)
      : ring_(ring), window_(limits), compare_(compare) {}

  Measured run(const std::string &description) {
    GError *parse_error = nullptr;
    GstElement *pipeline = gst_parse_launch(description.c_str(), &parse_error);
    if (!pipeline || parse_error) {
      Measured failed;
      failed.error = parse_error ? parse_error->message : "cannot parse " + description;
      g_clear_error(&parse_error);
      if (pipeline)
        gst_object_unref(pipeline);
      return failed;
    }
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    converter_ = gst_bin_get_by_name(GST_BIN(pipeline), "ef");
    const GstVideoInfo &info = ring_.info();
    GstCaps *caps = gst_video_info_to_caps(&info);
    // Room for the frame being pushed and one more, as a producer's ring allows.
    g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, "max-bytes", guint64(2 * info.size),
                 nullptr);
    gst_caps_unref(caps);
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = need_data;
    gst_app_src_set_callbacks(GST_APP_SRC(src), &callbacks, this, nullptr);
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    if (work_)
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_work, this, nullptr);
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame, this, nullptr);
    gst_object_unref(pad);
    if (converter_)
      count_chain_allocations();

    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *message = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND, GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    Measured m = window_.frames ? per_frame(window_) : Measured{};
    m.backend = backend_;
    m.libyuv_difference = libyuv_difference_;
    if (converter_ && window_.frames)
      m.allocs_per_frame = double(chain_allocations_) / double(window_.frames);
    for (const auto &[name, change] : stats_)
      m.stats[name] = double(change) / double(window_.frames);
    if (!message)
      m.error = "no EOS within 120 s";
    else if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
      m.error = message_text(message);
    if (message)
      gst_message_unref(message);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    if (converter_)
      gst_object_unref(converter_);
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(pipeline);
    return m;
  }

  // Work a stage after the pipeline does on each output, in its streaming
  // thread (counted in the frame's time): a model's own preprocessing.
  PipelineRun &with_work(std::function<void(GstBuffer *)> work) {
    work_ = std::move(work);
    return *this;
  }

 private:
  static GstPadProbeReturn on_work(GstPad *, GstPadProbeInfo *info, gpointer self) {
    static_cast<PipelineRun *>(self)->work_(GST_PAD_PROBE_INFO_BUFFER(info));
    return GST_PAD_PROBE_OK;
  }

  // Heap allocations from efconvert's sink pad to its source pad, on the
  // streaming thread that carries a frame through it (alloc_count.hpp).
  void count_chain_allocations() {
    GstPad *in = gst_element_get_static_pad(converter_, "sink");
    GstPad *out = gst_element_get_static_pad(converter_, "src");
    gst_pad_add_probe(
        in, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer self) {
          static_cast<PipelineRun *>(self)->entered_ = ef::bench::thread_allocations();
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
    gst_pad_add_probe(
        out, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer self) {
          auto *run = static_cast<PipelineRun *>(self);
          if (run->window_.started() && !run->complete_.load(std::memory_order_acquire))
            run->chain_allocations_ += ef::bench::thread_allocations() - run->entered_;
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
    gst_object_unref(in);
    gst_object_unref(out);
  }

  static void need_data(GstAppSrc *src, guint, gpointer self) {
    auto *run = static_cast<PipelineRun *>(self);
    if (run->complete_.load(std::memory_order_acquire))
      gst_app_src_end_of_stream(src);
    else
      gst_app_src_push_buffer(src, run->ring_.frame(run->pushed_++, Wrap::Stable));
  }

  static GstPadProbeReturn on_frame(GstPad *pad, GstPadProbeInfo *info, gpointer self) {
    auto *run = static_cast<PipelineRun *>(self);
    const bool started = run->window_.started();
    const bool complete = run->window_.frame_done();
    if (!started && run->window_.started())
      run->at_window_start();
    if (complete && !run->complete_.exchange(true, std::memory_order_acq_rel)) {
      run->at_window_end();
      // Frames come out in the order they went in, one for one.
      if (run->compare_) {
        GstCaps *caps = gst_pad_get_current_caps(pad);
        run->libyuv_difference_ =
            difference_from_libyuv(run->ring_, run->window_.warmup() + run->window_.frames - 1,
                                   GST_PAD_PROBE_INFO_BUFFER(info), caps);
        gst_caps_unref(caps);
      }
    }
    return GST_PAD_PROBE_OK;
  }

  void at_window_start() {
    if (!converter_)
      return;
    gchar *name = nullptr;
    g_object_get(converter_, "backend-in-use", &name, nullptr);
    backend_ = name ? name : "";
    g_free(name);
    auto counters = element_stats(converter_);
    for (const char *stat : kStats)
      stats_[stat] = -counters[stat];
  }

  void at_window_end() {
    if (!converter_)
      return;
    auto counters = element_stats(converter_);
    for (const char *stat : kStats)
      stats_[stat] += counters[stat];
  }

  MemfdRing &ring_;
  Window window_;
  GstElement *converter_ = nullptr;  // efconvert, named "ef", where the case has one
  std::string backend_;
  std::map<std::string, uint64_t> stats_;  // end - start, modulo 2^64
  uint64_t pushed_ = 0;
  std::atomic<bool> complete_{false};
  const bool compare_;
  int libyuv_difference_ = -1;
  std::function<void(GstBuffer *)> work_;
  uint64_t entered_ = 0, chain_allocations_ = 0;
};

Measured run_libyuv(MemfdRing &ring, GstVideoFormat format) {
  std::vector<GstVideoFrame> frames(ring.slots());
  for (guint s = 0; s < ring.slots(); ++s) {
    GstBuffer *buffer = ring.frame(s, Wrap::Stable);
    const bool mapped = gst_video_frame_map(&frames[s], &ring.info(), buffer, GST_MAP_READ);
    gst_buffer_unref(buffer);  // the mapping keeps its own reference
    if (!mapped) {
      for (guint m = 0; m < s; ++m)
        gst_video_frame_unmap(&frames[m]);
      Measured failed;
      failed.error = "cannot map a ring slot";
      return failed;
    }
  }
  LibyuvLetterbox letterbox(format);
  Window window(kCaseLimits);
  uint64_t n = 0;
  do
    letterbox.convert(frames[n++ % frames.size()]);
  while (!window.frame_done());
  for (GstVideoFrame &frame : frames)
    gst_video_frame_unmap(&frame);
  return per_frame(window);
}

// Every thread of the process, and so every thread they start, on the first
// CPU allowed, until destroyed; then every thread back on the CPUs the main
// thread had. Threads are walked in /proc because GStreamer's streaming
// threads come from a pool that outlives a pipeline; efconvert's helpers are
// made with the caps by the (pinned) streaming thread and inherit its CPU.
class PinProcess {
 public:
  PinProcess() {
    sched_getaffinity(0, sizeof all_, &all_);
    cpu_set_t one;
    CPU_ZERO(&one);
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all_))
      ++cpu;
    CPU_SET(cpu, &one);
    apply(one);
  }
  ~PinProcess() { apply(all_); }
  PinProcess(const PinProcess &) = delete;
  PinProcess &operator=(const PinProcess &) = delete;

 private:
  static void apply(const cpu_set_t &set) {
    std::error_code ignored;
    for (const auto &task : std::filesystem::directory_iterator("/proc/self/task", ignored))
      sched_setaffinity(pid_t(std::stol(task.path().filename().string())), sizeof set, &set);
  }

  cpu_set_t all_;
};

struct Case {
  const char *name;     // the benchmark name's last part
  const char *backend;  // the efconvert backend-in-use it must show, or nullptr
  bool pinned = false;
  unsigned threads = 0;  // efconvert's n-threads (0: its default, every CPU)
};

const Case kCases[] = {
    {"efconvert-cpu", "cpu"},
    {"efconvert-cpu-1cpu", "cpu", true},
    {"efconvert-cpu-t1", "cpu", false, 1},
    {"efconvert-cpu-t2", "cpu", false, 2},
    {"efconvert-cpu-t4", "cpu", false, 4},
    {"efconvert-cpu-t8", "cpu", false, 8},
    {"efconvert-cpu-t16", "cpu", false, 16},
    {"efconvert-gl", "gl"},
    {"videoconvert-videoscale", nullptr},
    {"gl-chain", nullptr},
    {"libyuv", nullptr},
};

// The 4K cases: efconvert's CPU backend at each thread count, each after a
// memcpy of the bytes it reads and writes on as many threads.
constexpr unsigned kThreadCounts[] = {1, 2, 4, 8, 16};
constexpr int k4kWidth = 3840, k4kHeight = 2160, k4kOut = 1280;

// What sits between appsrc and the output caps; empty for the libyuv loop,
// which runs no pipeline.
std::string chain_of(const Case &c, GstVideoFormat format) {
  const std::string name = c.name;
  if (name == "libyuv")
    return "";
  if (c.backend)
    return std::string("efconvert name=ef backend=") + c.backend +
           (c.threads ? " n-threads=" + std::to_string(c.threads) : "");
  if (name == "videoconvert-videoscale")
    return "videoconvert ! videoscale add-borders=true";
  // glcolorscale takes RGBA only and cannot letterbox: it stretches the
  // frame to 640x640. GstGL 1.22's RGBP shader fails to compile on Mesa
  // ("preprocessor error"), so for RGBP the scaled RGBA is downloaded and
  // videoconvert makes the planes.
  const std::string scaled =
      "glupload ! glcolorconvert ! glcolorscale ! video/x-raw(memory:GLMemory),format=RGBA,"
      "width=640,height=640,pixel-aspect-ratio=1/1 ! ";
  if (format == GST_VIDEO_FORMAT_RGBP)
    return scaled + "gldownload ! videoconvert";
  return scaled + "glcolorconvert ! video/x-raw(memory:GLMemory),format=RGB ! gldownload";
}

std::string pipeline_of(const std::string &chain, GstVideoFormat format, int out = kOut) {
  constexpr const char *kSource = "appsrc name=src ! ";
  constexpr const char *kSink = "fakesink name=sink sync=false enable-last-sample=false";
  if (chain.empty())
    return std::string(kSource) + kSink;
  const std::string side = std::to_string(out);
  return kSource + chain + " ! video/x-raw,format=" + gst_video_format_to_string(format) +
         ",width=" + side + ",height=" + side + ",pixel-aspect-ratio=1/1 ! " + kSink;
}

MemfdRing *ring = nullptr;
MemfdRing *ring_4k = nullptr;

// The figures of one measured case into its counters.
void report(benchmark::State &state, const Measured &net, const Measured &gross,
            const Measured &source) {
  state.SetIterationTime(net.wall_ns / 1e9);
  auto &counters = state.counters;
  counters["wall_us"] = net.wall_ns / 1e3;
  counters["cpu_us"] = net.cpu_ns / 1e3;
  counters["gross_wall_us"] = gross.wall_ns / 1e3;
  counters["gross_cpu_us"] = gross.cpu_ns / 1e3;
  counters["source_wall_us"] = source.wall_ns / 1e3;
  counters["source_cpu_us"] = source.cpu_ns / 1e3;
  counters["frames"] = double(gross.frames);
  if (gross.libyuv_difference >= 0)
    counters["libyuv_max_diff"] = gross.libyuv_difference;
  if (gross.allocs_per_frame >= 0)
    counters["allocs_per_frame"] = gross.allocs_per_frame;
  for (const auto &[name, per_frame] : gross.stats) {
    std::string key = name + "_per_frame";
    std::replace(key.begin(), key.end(), '-', '_');
    counters[key] = per_frame;
  }
}

void BM_Convert(benchmark::State &state, const Case &c, GstVideoFormat format) {
  const std::string chain = chain_of(c, format);
  for (auto _ : state) {
    Measured net, gross, source;
    if (chain.empty()) {
      gross = net = run_libyuv(*ring, format);
    } else {
      std::optional<PinProcess> pin;
      if (c.pinned)
        pin.emplace();
      source = PipelineRun(*ring, kSourceLimits).run(pipeline_of("", format));
      const bool cpu = c.backend && std::string(c.backend) == "cpu";
      gross = PipelineRun(*ring, kCaseLimits, cpu).run(pipeline_of(chain, format));
      net = gross;
      net.wall_ns -= source.wall_ns;
      net.cpu_ns -= source.cpu_ns;
    }
    // Rerunning after the GL backend lands fills its row in.
    if (gross.error.find("not available in this build") != std::string::npos)
      return state.SkipWithError(("n/a (not built): " + gross.error).c_str());
    for (const std::string &error : {source.error, gross.error})
      if (!error.empty())
        return state.SkipWithError(error.c_str());
    if (c.backend && gross.backend != c.backend)
      return state.SkipWithError(("efconvert ran backend " + gross.backend).c_str());
    report(state, net, gross, source);
    state.SetLabel(chain.empty() ? "libyuv, one thread" : chain);
  }
}

// What a 4K frame's conversion reads (the NV12 frame) and writes (the
// 1280x1280 output).
double bytes_4k(GstVideoFormat format) {
  GstVideoInfo out;  // rows of 1280 pixels have no padding
  gst_video_info_set_format(&out, format, k4kOut, k4kOut);
  return double(GST_VIDEO_INFO_SIZE(&ring_4k->info())) + double(GST_VIDEO_INFO_SIZE(&out));
}

void BM_Convert4k(benchmark::State &state, GstVideoFormat format, unsigned threads) {
  const Case c{"efconvert-cpu", "cpu", false, threads};
  for (auto _ : state) {
    const Measured source = PipelineRun(*ring_4k, kSourceLimits).run(pipeline_of("", format));
    const Measured gross =
        PipelineRun(*ring_4k, kCaseLimits).run(pipeline_of(chain_of(c, format), format, k4kOut));
    for (const std::string &error : {source.error, gross.error})
      if (!error.empty())
        return state.SkipWithError(error.c_str());
    if (gross.backend != "cpu")
      return state.SkipWithError(("efconvert ran backend " + gross.backend).c_str());
    Measured net = gross;
    net.wall_ns -= source.wall_ns;
    net.cpu_ns -= source.cpu_ns;
    report(state, net, gross, source);
    state.counters["gb_per_s"] = bytes_4k(format) / net.wall_ns;
    state.counters["bytes_per_frame"] = bytes_4k(format);
    state.SetLabel(chain_of(c, format));
  }
}

// memcpy of as many bytes as a 4K conversion reads and writes (half read,
// half written, on `threads` threads in equal chunks), from the ring's
// frames into one buffer. Its GB/s is that of the conversion's bytes at
// the speed memory moves them.
void BM_Memcpy4k(benchmark::State &state, GstVideoFormat format, unsigned threads) {
  const size_t half = size_t(bytes_4k(format) / 2);
  std::vector<GstMapInfo> maps(ring_4k->slots());
  std::vector<GstBuffer *> buffers(ring_4k->slots());
  for (guint s = 0; s < ring_4k->slots(); ++s) {
    buffers[s] = ring_4k->frame(s, Wrap::Stable);
    gst_buffer_map(buffers[s], &maps[s], GST_MAP_READ);
  }
  std::vector<uint8_t> to(half);
  ef::gst::cpu::Pool pool(threads);
  for (auto _ : state) {
    Window window(kCaseLimits);
    uint64_t n = 0;
    do {
      const uint8_t *from = maps[n++ % maps.size()].data;
      auto chunk = [&](size_t k) {
        const size_t begin = half * k / threads, end = half * (k + 1) / threads;
        std::memcpy(to.data() + begin, from + begin, end - begin);
      };
      pool.run(threads, chunk);
    } while (!window.frame_done());
    const Measured m = per_frame(window);
    report(state, m, m, Measured{});
    state.counters["gb_per_s"] = 2.0 * double(half) / m.wall_ns;
    state.counters["bytes_per_frame"] = 2.0 * double(half);
    state.SetLabel("memcpy on " + std::to_string(threads) + " threads");
  }
  for (guint s = 0; s < ring_4k->slots(); ++s) {
    gst_buffer_unmap(buffers[s], &maps[s]);
    gst_buffer_unref(buffers[s]);
  }
}

// Writes `picture` into ring slot `slot`, through a re-wrapped frame: a new,
// writable buffer over the slot's memfd.
std::string copy_into_slot(MemfdRing &ring, guint slot, GstSample *picture) {
  GstVideoInfo info;
  GstVideoFrame from, to;
  if (!gst_video_info_from_caps(&info, gst_sample_get_caps(picture)) ||
      !gst_video_frame_map(&from, &info, gst_sample_get_buffer(picture), GST_MAP_READ))
    return "cannot read videotestsrc's frame";
  GstBuffer *buffer = ring.frame(slot, Wrap::Rewrap);
  const bool mapped = buffer && gst_video_frame_map(&to, &ring.info(), buffer, GST_MAP_WRITE);
  if (mapped) {
    gst_video_frame_copy(&to, &from);
    gst_video_frame_unmap(&to);
  }
  gst_video_frame_unmap(&from);
  if (buffer)
    gst_buffer_unref(buffer);
  return mapped ? "" : "cannot map a ring slot for writing";
}

// Consecutive frames of a scrolling videotestsrc pattern, one per slot,
// rendered once: the frames every case converts. The ring's info is taken
// from videotestsrc's caps, colorimetry (BT.709 for 1080p) included.
std::unique_ptr<MemfdRing> render_ring(int width, int height, std::string &error) {
  GstElement *pipeline = gst_parse_launch(
      ("videotestsrc pattern=smpte horizontal-speed=37 num-buffers=" + std::to_string(kSlots) +
       " ! video/x-raw,format=NV12,width=" + std::to_string(width) +
       ",height=" + std::to_string(height) + ",framerate=30/1 ! appsink name=sink")
          .c_str(),
      nullptr);
  if (!pipeline) {
    error = "cannot make videotestsrc ! appsink";
    return nullptr;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::unique_ptr<MemfdRing> made;
  for (guint s = 0; s < kSlots && error.empty(); ++s) {
    GstSample *sample = gst_app_sink_pull_sample(GST_APP_SINK(sink));
    GstVideoInfo info;
    if (!sample || !gst_video_info_from_caps(&info, gst_sample_get_caps(sample)))
      error = "videotestsrc gave no frame";
    else if (!made && !(made = std::make_unique<MemfdRing>(info, kSlots))->error().empty())
      error = made->error();
    else
      error = copy_into_slot(*made, s, sample);
    if (sample)
      gst_sample_unref(sample);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return error.empty() ? std::move(made) : nullptr;
}

}  // namespace

// Model inputs, side by side: 1080p NV12 to a 640x640 letterboxed tensor,
// float32 NCHW normalised with ImageNet's mean and std, or int8 NHWC
// quantised, by efconvert cpu in one pass; against its own RGB output,
// that output normalised afterwards by a plain C loop (what onnxinference
// does inside), and videoconvert ! videoscale with the same loop.
constexpr float kMean[3] = {123.675f, 116.28f, 103.53f};
constexpr float kStd[3] = {58.395f, 57.12f, 57.375f};
constexpr float kQuantScale = 0.0186f;
constexpr int kZeroPoint = -14;
constexpr const char *kNormProps =
    " mean=\"<123.675, 116.28, 103.53>\" std=\"<58.395, 57.12, 57.375>\"";

struct TensorKind {
  const char *name;
  bool int8;  // else float32 NCHW
};

// The limits of the memory, no pipeline: the tensor's bytes written
// (streamed, or stored through the cache), or the NV12 frame read and the
// tensor streamed.
enum class Raw { None, Write, WriteCached, ReadWrite };

struct TensorCase {
  const char *name;
  bool efconvert;  // else videoconvert ! videoscale
  bool tensor;     // efconvert's tensor; else RGB
  bool loop;       // the C loop after the RGB output
  Raw raw = Raw::None;
};

constexpr TensorCase kTensorCases[] = {
    {"efconvert-cpu-tensor", true, true, false},
    {"efconvert-cpu-rgb", true, false, false},
    {"efconvert-cpu-rgb-loop", true, false, true},
    {"videoconvert-videoscale-loop", false, false, true},
    {"raw-write", false, true, false, Raw::Write},
    {"raw-write-cached", false, true, false, Raw::WriteCached},
    {"raw-read-write", false, true, false, Raw::ReadWrite},
};

std::string tensor_pipeline(const TensorKind &k, const TensorCase &c) {
  const std::string rgb = " ! video/x-raw,format=RGB,width=640,height=640,pixel-aspect-ratio=1/1";
  std::string chain =
      c.efconvert ? "efconvert name=ef backend=cpu" : "videoconvert ! videoscale add-borders=true";
  if (c.tensor)
    chain += std::string(kNormProps) +
             (k.int8 ? " quant-scale=0.0186 quant-zero-point=-14 ! other/tensors,format=static,"
                       "num_tensors=1,types=int8,dimensions=3:640:640:1"
                     : " ! other/tensors,format=static,num_tensors=1,types=float32,"
                       "dimensions=640:640:3:1");
  else
    chain += rgb;
  return "appsrc name=src ! " + chain + " ! fakesink name=sink sync=false enable-last-sample=false";
}

// The plain loop: an RGB frame to the tensor, as a model's own
// preprocessing does it, into memory kept across frames.
void normalise_loop(GstBuffer *buffer, bool int8, std::vector<uint8_t> &out) {
  GstMapInfo map;
  if (!gst_buffer_map(buffer, &map, GST_MAP_READ))
    return;
  const size_t pixels = size_t(kOut) * kOut;
  out.resize(pixels * 3 * (int8 ? 1 : 4));
  auto *f = reinterpret_cast<float *>(out.data());
  auto *q = reinterpret_cast<int8_t *>(out.data());
  for (size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < 3; ++c) {
      const float v = (map.data[3 * i + c] - kMean[c]) / kStd[c];
      if (int8)
        q[3 * i + c] = int8_t(std::clamp(std::lrint(v / kQuantScale) + kZeroPoint, -128L, 127L));
      else
        f[c * pixels + i] = v;
    }
  gst_buffer_unmap(buffer, &map);
}

// Bytes [begin, end) of `to` (16-byte aligned bounds) set to a value,
// streamed past the cache or stored through it.
void fill(uint8_t *to, size_t begin, size_t end, bool stream) {
#if defined(__x86_64__) || defined(__i386__)
  const __m128i v = _mm_set1_epi32(0x3f800000);
  if (!stream) {
    for (size_t i = begin; i < end; i += 16)
      _mm_store_si128(reinterpret_cast<__m128i *>(to + i), v);
    return;
  }
  for (size_t i = begin; i < end; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i *>(to + i), v);
  _mm_sfence();
#else
  (void)stream;
  std::memset(to + begin, 0x3f, end - begin);
#endif
}

// The OR of `from`'s bytes [begin, end): each read once.
uint64_t read_all(const uint8_t *from, size_t begin, size_t end) {
#if defined(__x86_64__) || defined(__i386__)
  __m128i sum = _mm_setzero_si128();
  for (size_t i = begin; i < end; i += 16)
    sum = _mm_or_si128(sum, _mm_load_si128(reinterpret_cast<const __m128i *>(from + i)));
  return uint64_t(_mm_cvtsi128_si64(sum)) | uint64_t(_mm_extract_epi16(sum, 7));
#else
  uint64_t sum = 0;
  for (size_t i = begin; i < end; i += 8) {
    uint64_t v;
    std::memcpy(&v, from + i, 8);
    sum |= v;
  }
  return sum;
#endif
}

// The raw limit of a tensor: its bytes written into the memory efconvert
// writes it into (its own pool, as fakesink offers none), by as many
// threads as efconvert converts with (n-threads' default, one per CPU the
// process may run on), each its share, with streaming stores (or, with
// Raw::WriteCached, plain ones) and nothing else; with Raw::ReadWrite,
// each thread also reads its share of the NV12 frame once. efconvert's
// RGB output + this is what the tensor would cost if the write were the
// only thing it added.
Measured run_raw_tensor(bool int8, Raw raw) {
  const bool read = raw == Raw::ReadWrite;
  const size_t bytes = size_t(kOut) * kOut * 3 * (int8 ? 1 : 4);
  Measured m;
  GstElement *owner = gst_element_factory_make("fakesink", nullptr);
  GstBufferPool *pool = ef::gst::make_tensor_pool(owner, bytes);
  std::vector<GstMapInfo> frames(ring->slots());
  std::vector<GstBuffer *> inputs(ring->slots());
  for (guint s = 0; s < ring->slots(); ++s) {
    inputs[s] = ring->frame(s, Wrap::Stable);
    gst_buffer_map(inputs[s], &frames[s], GST_MAP_READ);
  }
  const unsigned threads = g_get_num_processors();
  ef::gst::cpu::Pool workers(threads);
  std::atomic<uint64_t> sink{0};
  Window window(kCaseLimits);
  uint64_t n = 0;
  while (pool) {
    GstBuffer *out = nullptr;
    GstMapInfo map;
    if (gst_buffer_pool_acquire_buffer(pool, &out, nullptr) != GST_FLOW_OK ||
        !gst_buffer_map(out, &map, GST_MAP_WRITE)) {
      m.error = "cannot map a tensor of efconvert's pool";
      if (out)
        gst_buffer_unref(out);
      break;
    }
    const GstMapInfo &in = frames[n++ % frames.size()];
    // Shares on 64-byte lines: no two threads write one line.
    auto share = [&](size_t total, size_t k) { return total * k / threads / 64 * 64; };
    auto job = [&](size_t k) {
      if (read)
        sink.fetch_or(read_all(in.data, share(in.size, k),
                               k + 1 == threads ? in.size / 16 * 16 : share(in.size, k + 1)),
                      std::memory_order_relaxed);
      fill(map.data, share(bytes, k), k + 1 == threads ? bytes : share(bytes, k + 1),
           raw != Raw::WriteCached);
    };
    workers.run(threads, job);
    gst_buffer_unmap(out, &map);
    gst_buffer_unref(out);
    if (window.frame_done())
      break;
  }
  for (guint s = 0; s < ring->slots(); ++s) {
    gst_buffer_unmap(inputs[s], &frames[s]);
    gst_buffer_unref(inputs[s]);
  }
  if (pool) {
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
  } else {
    m.error = "cannot make efconvert's tensor pool";
  }
  gst_object_unref(owner);
  if (!m.error.empty())
    return m;
  Measured done = per_frame(window);
  done.stats["read_bytes"] = read ? double(frames[0].size) : 0;
  done.stats["written_bytes"] = double(bytes);
  return done;
}

void BM_Tensor(benchmark::State &state, TensorKind kind, TensorCase c) {
  const std::string description = tensor_pipeline(kind, c);
  std::vector<uint8_t> scratch;
  for (auto _ : state) {
    if (c.raw != Raw::None) {
      const Measured m = run_raw_tensor(kind.int8, c.raw);
      if (!m.error.empty())
        return state.SkipWithError(m.error.c_str());
      report(state, m, m, Measured{});
      state.counters["gb_per_s"] =
          (m.stats.at("read_bytes") + m.stats.at("written_bytes")) / m.wall_ns;
      const char *what = c.raw == Raw::Write         ? "tensor's bytes streamed"
                         : c.raw == Raw::WriteCached ? "tensor's bytes stored through the cache"
                                                     : "NV12 frame read, tensor's bytes streamed";
      state.SetLabel(std::string(what) + " on " + std::to_string(g_get_num_processors()) +
                     " threads");
      continue;
    }
    const Measured source =
        PipelineRun(*ring, kSourceLimits).run(pipeline_of("", GST_VIDEO_FORMAT_RGB));
    PipelineRun run(*ring, kCaseLimits);
    if (c.loop)
      run.with_work([&](GstBuffer *b) { normalise_loop(b, kind.int8, scratch); });
    const Measured gross = run.run(description);
    for (const std::string &error : {source.error, gross.error})
      if (!error.empty())
        return state.SkipWithError(error.c_str());
    if (c.efconvert && gross.backend != "cpu")
      return state.SkipWithError(("efconvert ran backend " + gross.backend).c_str());
    Measured net = gross;
    net.wall_ns -= source.wall_ns;
    net.cpu_ns -= source.cpu_ns;
    report(state, net, gross, source);
    state.SetLabel(description.substr(std::strlen("appsrc name=src ! ")));
  }
}

int main(int argc, char **argv) {
  // GSlice's own slabs would hide the buffers' and metas' allocations.
  ef::bench::ensure_slices_are_counted(argv);
  init_gstreamer(&argc, &argv);
  // Options first: --help or a mistyped option answers before the ring is rendered.
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  std::string error;
  std::unique_ptr<MemfdRing> made = render_ring(kInWidth, kInHeight, error);
  std::unique_ptr<MemfdRing> made_4k = made ? render_ring(k4kWidth, k4kHeight, error) : nullptr;
  if (!made || !made_4k) {
    fprintf(stderr, "bench_convert: %s\n", error.c_str());
    return 1;
  }
  ring = made.get();
  ring_4k = made_4k.get();
  gchar *colorimetry = gst_video_colorimetry_to_string(&ring->info().colorimetry);
  benchmark::AddCustomContext("input",
                              std::string("ring of 4 memfds (GstDmaBufMemory, system-memory caps), "
                                          "1920x1080 NV12, ") +
                                  colorimetry + ", videotestsrc smpte scrolling");
  g_free(colorimetry);
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGBP})
    for (const Case &c : kCases)
      benchmark::RegisterBenchmark(
          (std::string("BM_Convert/") + gst_video_format_to_string(format) + "/" + c.name).c_str(),
          BM_Convert, c, format)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
  for (TensorKind kind : {TensorKind{"float32-nchw", false}, TensorKind{"int8-nhwc", true}})
    for (const TensorCase &c : kTensorCases)
      benchmark::RegisterBenchmark((std::string("BM_Tensor/") + kind.name + "/" + c.name).c_str(),
                                   BM_Tensor, kind, c)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
  // 4K: each thread count's memcpy, then its conversion.
  using Bench4k = void (*)(benchmark::State &, GstVideoFormat, unsigned);
  struct Kind {
    const char *name;
    Bench4k fn;
  };
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_RGBP})
    for (unsigned threads : kThreadCounts)
      for (const Kind &kind : {Kind{"BM_Memcpy4k/%s/memcpy-t%u", BM_Memcpy4k},
                               Kind{"BM_Convert4k/%s/efconvert-cpu-t%u", BM_Convert4k}}) {
        char name[96];
        std::snprintf(name, sizeof name, kind.name, gst_video_format_to_string(format), threads);
        benchmark::RegisterBenchmark(name, kind.fn, format, threads)
            ->Iterations(1)
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
