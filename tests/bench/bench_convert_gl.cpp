// SPDX-License-Identifier: LGPL-2.1-or-later
// The GPU-resident path: 1080p NV12 frames that already are GL memory, as a
// hardware decoder hands them out, through efconvert's GL backend and through
// GstGL's glcolorconvert ! glcolorscale, side by side in one run, to the same
// 640x640 outputs: RGBA in GL memory (nothing leaves the GPU), and RGB and
// RGBP in plain memory for inference (read back); and efconvert's model
// inputs beside them, a float32 NCHW tensor normalised with ImageNet's mean
// and std and an int8 NHWC one quantised, in plain memory and as GL buffers
// that stay on the GPU (memory:GLBuffer). docs/BENCHMARKS.md ("efconvert on
// GL memory", "efconvert tensors on GL") states the targets, what each
// figure measures and the figures measured.
//
// One iteration is one run of  appsrc ! CASE ! OUTPUT CAPS ! fakesink.
// appsrc pushes a ring of 4 NV12 GL-memory frames uploaded once, into a GL
// context of this program that every GL element of the pipeline uses (it is
// answered to their context queries, as a decoder answers them). A window
// of frames gives wall-clock and process CPU time per frame, and efconvert's
// own counters (copies, read-backs, GPU time); a second window gives GPU time
// per frame from GL timestamps around each frame's whole chain.
//
//   bench_convert_gl [Google Benchmark options]
//   (headless: GST_GL_WINDOW=egl-device; GLES: GST_GL_API=gles2)
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>

#include <array>
#include <atomic>
#include <chrono>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "alloc_count.hpp"
#include "efconvert/backends/gl/gl_gpu_timer.hpp"
#include "frame_rings.hpp"
#include "upload_run.hpp"

namespace {

constexpr int kOut = 640;
constexpr guint kSlots = 4;
constexpr uint64_t kWarmup = 12;     // negotiation, shaders, first imports
constexpr uint64_t kMinFrames = 60;  // and at least kMinSeconds
constexpr double kMinSeconds = 1.0;
constexpr uint64_t kGpuFrames = 30;  // the GPU-timestamp window after it
constexpr size_t kTimestampRing = 16;

uint64_t wall_now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// Every thread of the process: GstGL's, the driver's (llvmpipe rasterizes
// on threads of its own), efconvert's.
uint64_t process_cpu_ns() {
  return uint64_t(std::clock()) * (1'000'000'000u / CLOCKS_PER_SEC);
}

using ef::bench::FrameRing;
using ef::bench::ProgramGl;

ProgramGl *gl = nullptr;

FrameRing *ring = nullptr;

// GPU time per frame from GL timestamps: one when the frame enters the
// chain, one when its output reaches the sink (after the sink has mapped a
// plain-memory output, which completes a download), each written into the
// GL stream on the context's thread and flushed. Their difference is how
// long the GPU took from the first of the frame's commands to the last, idle
// gaps while the CPU prepared the next command included: an upper bound of
// GPU busy time, measured the same way for every case. Timestamps, not
// GL_TIME_ELAPSED brackets, so that efconvert's own brackets (which cannot
// nest) still run. Results are read kTimestampRing frames later.
class GpuStamps {
 public:
  explicit GpuStamps(GstGLContext *context) : context_(context) {
    supported_ = ef::gst::has_timer_queries(context) && context->gl_vtable->QueryCounter;
    if (supported_)
      run([](GpuStamps *self, const GstGLFuncs *f) {
        for (Pair &p : self->ring_)
          f->GenQueries(2, p.ids.data());
      });
  }
  ~GpuStamps() {
    if (supported_)
      run([](GpuStamps *self, const GstGLFuncs *f) {
        for (Pair &p : self->ring_)
          f->DeleteQueries(2, p.ids.data());
      });
  }
  GpuStamps(const GpuStamps &) = delete;
  GpuStamps &operator=(const GpuStamps &) = delete;

  bool supported() const { return supported_; }
  void begin() {
    if (supported_)
      run([](GpuStamps *self, const GstGLFuncs *f) { self->stamp(f, 0); });
  }
  void end() {
    if (supported_)
      run([](GpuStamps *self, const GstGLFuncs *f) { self->stamp(f, 1); });
  }
  void finish() {
    if (supported_)
      run([](GpuStamps *self, const GstGLFuncs *f) {
        for (Pair &p : self->ring_)
          self->read(f, p);
      });
  }
  double per_frame_ns() const { return frames_ ? double(total_ns_) / double(frames_) : -1; }

 private:
  struct Pair {
    std::array<GLuint, 2> ids{};
    bool done[2] = {false, false};
  };
  template <typename F>
  void run(F f) {
    struct Job {
      GpuStamps *self;
      F *f;
    } job{this, &f};
    gst_gl_context_thread_add(
        context_,
        [](GstGLContext *ctx, gpointer data) {
          auto *j = static_cast<Job *>(data);
          (*j->f)(j->self, ctx->gl_vtable);
        },
        &job);
  }
  void stamp(const GstGLFuncs *f, int which) {
    if (which == 0) {
      if (open_)  // the last frame never reached the sink
        current_ = (current_ + 1) % kTimestampRing;
      read(f, ring_[current_]);
    } else if (!open_) {
      return;
    }
    Pair &p = ring_[current_];
    f->QueryCounter(p.ids[which], GL_TIMESTAMP);
    f->Flush();
    p.done[which] = true;
    open_ = which == 0;
    if (which == 1)
      current_ = (current_ + 1) % kTimestampRing;
  }
  void read(const GstGLFuncs *f, Pair &p) {
    if (p.done[0] && p.done[1]) {
      GLuint64 t[2] = {0, 0};
      f->GetQueryObjectui64v(p.ids[0], GL_QUERY_RESULT, &t[0]);
      f->GetQueryObjectui64v(p.ids[1], GL_QUERY_RESULT, &t[1]);
      if (t[1] >= t[0]) {
        total_ns_ += t[1] - t[0];
        ++frames_;
      }
    }
    p.done[0] = p.done[1] = false;
  }

  GstGLContext *context_;
  bool supported_ = false;
  std::array<Pair, kTimestampRing> ring_{};
  size_t current_ = 0;
  bool open_ = false;
  uint64_t total_ns_ = 0, frames_ = 0;
};

// F32: float32 NCHW normalised; I8: int8 NHWC quantised; Gl*: the same as
// GL buffers.
enum class Output { GlRgba, Rgb, Rgbp, F32, I8, GlF32, GlI8 };

const char *output_name(Output o) {
  switch (o) {
    case Output::GlRgba:
      return "GL-RGBA";
    case Output::Rgb:
      return "RGB";
    case Output::Rgbp:
      return "RGBP";
    case Output::F32:
      return "F32-NCHW";
    case Output::I8:
      return "I8-NHWC";
    case Output::GlF32:
      return "GL-F32-NCHW";
    default:
      return "GL-I8-NHWC";
  }
}

bool is_tensor(Output o) {
  return o == Output::F32 || o == Output::I8 || o == Output::GlF32 || o == Output::GlI8;
}

bool on_gpu(Output o) {
  return o == Output::GlRgba || o == Output::GlF32 || o == Output::GlI8;
}

// The model input's settings: ImageNet's mean and std, and for int8 the
// scale and zero point of bench_convert's tensor cases.
std::string tensor_props(Output o) {
  std::string props = " mean=\"<123.675,116.28,103.53>\" std=\"<58.395,57.12,57.375>\"";
  if (o == Output::I8 || o == Output::GlI8)
    props += " quant-scale=0.0186 quant-zero-point=-14";
  return props;
}

std::string output_caps(Output o) {
  const std::string size = std::to_string(kOut);
  const std::string gl_buffer = on_gpu(o) ? "(memory:GLBuffer)" : "";
  if (o == Output::F32 || o == Output::GlF32)
    return "other/tensors" + gl_buffer +
           ",format=static,num_tensors=1,types=float32,dimensions=" + size + ":" + size + ":3:1";
  if (o == Output::I8 || o == Output::GlI8)
    return "other/tensors" + gl_buffer +
           ",format=static,num_tensors=1,types=int8,dimensions=3:" + size + ":" + size + ":1";
  const std::string video = o == Output::GlRgba ? "video/x-raw(memory:GLMemory),format=RGBA"
                            : o == Output::Rgb  ? "video/x-raw,format=RGB"
                                                : "video/x-raw,format=RGBP";
  return video + ",width=" + size + ",height=" + size + ",pixel-aspect-ratio=1/1";
}

struct Case {
  const char *name;
  int readback_depth;           // efconvert's; -1: not efconvert
  const char *shader = "auto";  // efconvert's gl-shader
  const char *backend = "gl";   // efconvert's backend
  // EF_GL_TENSOR_WRITE for the run: "direct", the pass writes the pack
  // memory output itself (hardware GL); nullptr, the default (a copy).
  const char *tensor_write = nullptr;
};

// The chain between appsrc and the output caps. glcolorscale takes RGBA
// only and stretches (it cannot letterbox), so efconvert stretches too
// (letterbox=false): the same output pixels from the same input. GstGL
// 1.22's RGBP shader does not compile on Mesa, hence videoconvert for the
// planes of the downloaded RGBA.
std::string chain_of(const Case &c, Output o) {
  if (c.readback_depth >= 0)
    // gpu-timing: the GPU time of the pass and the read-back (the
    // counters gpu_own_us, gpu_readback_us).
    return std::string("efconvert name=conv backend=") + c.backend +
           " letterbox=false readback-depth=" + std::to_string(c.readback_depth) +
           " gl-shader=" + c.shader + " gpu-timing=true" + (is_tensor(o) ? tensor_props(o) : "");
  const std::string size = ",width=" + std::to_string(kOut) + ",height=" + std::to_string(kOut) +
                           ",pixel-aspect-ratio=1/1";
  const std::string scaled =
      "glcolorconvert name=first ! video/x-raw(memory:GLMemory),format=RGBA ! glcolorscale ! "
      "video/x-raw(memory:GLMemory),format=RGBA" +
      size;
  if (o == Output::GlRgba)
    return scaled;
  if (o == Output::Rgbp)
    return scaled + " ! gldownload ! videoconvert";
  return scaled + " ! glcolorconvert ! video/x-raw(memory:GLMemory),format=RGB ! gldownload";
}

std::string pipeline_of(const Case &c, Output o) {
  // A capsfilter element: gst_parse takes no two caps strings in a row.
  return "appsrc name=src ! " + chain_of(c, o) + " ! capsfilter caps=\"" + output_caps(o) +
         "\" ! fakesink name=sink sync=false enable-last-sample=false";
}

// efconvert's counters read over the window (per frame).
constexpr const char *kStats[] = {
    "frames",   "uploads",    "readbacks",   "bytes-read", "declines",
    "dst-hits", "dst-misses", "gpu-time-ns", "gpu-frames", "readback-gpu-time-ns"};

struct Measured {
  std::string error;
  std::string backend, shader;
  uint64_t frames = 0;
  double wall_ns = 0, cpu_ns = 0, gpu_stamp_ns = -1;
  uint64_t gl_outputs = 0;       // frames of the window whose output was GL memory
  double allocs_per_frame = -1;  // heap allocations in efconvert's chain
  std::map<std::string, double> stats;
};

class Run {
 public:
  Run(const Case &c, Output o) : case_(c), output_(o), stamps_(gl->context) {}

  Measured run() {
    if (case_.tensor_write)
      g_setenv("EF_GL_TENSOR_WRITE", case_.tensor_write, TRUE);
    Measured m = run_pipeline();
    g_unsetenv("EF_GL_TENSOR_WRITE");
    return m;
  }

 private:
  Measured run_pipeline() {
    GError *raw = nullptr;
    pipeline_ = gst_parse_launch(pipeline_of(case_, output_).c_str(), &raw);
    if (!pipeline_ || raw) {
      if (pipeline_)
        gst_object_unref(pipeline_);
      Measured m;
      m.error = std::string("cannot make the pipeline: ") + (raw ? raw->message : "?");
      g_clear_error(&raw);
      return m;
    }
    Measured m = play();
    gst_element_set_state(pipeline_, GST_STATE_NULL);
    if (converter_)
      gst_object_unref(converter_);
    gst_object_unref(pipeline_);
    return m;
  }

  Measured play() {
    GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline_), "sink");
    converter_ = gst_bin_get_by_name(GST_BIN(pipeline_), "conv");
    GstElement *first = converter_ ? GST_ELEMENT(gst_object_ref(converter_))
                                   : gst_bin_get_by_name(GST_BIN(pipeline_), "first");
    g_object_set(src, "caps", ring->caps(), "format", GST_FORMAT_TIME, nullptr);
    // Every GL element takes the program's context, as from a decoder.
    answer_ = {src, gl};
    GstPad *src_pad = gst_element_get_static_pad(src, "src");
    gst_pad_add_probe(src_pad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM, ef::bench::answer_gl_context,
                      &answer_, nullptr);
    gst_object_unref(src_pad);
    GstPad *first_pad = gst_element_get_static_pad(first, "sink");
    gst_pad_add_probe(first_pad, GST_PAD_PROBE_TYPE_BUFFER, on_enter, this, nullptr);
    gst_object_unref(first_pad);
    if (converter_)
      count_chain_allocations();
    GstPad *sink_pad = gst_element_get_static_pad(sink, "sink");
    gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_BUFFER, on_output, this, nullptr);
    // Plain memory for inference: a pool of it downstream, so efconvert
    // reads back here as on a driver that imports no memfd.
    gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, offer_system_pool, nullptr,
                      nullptr);
    gst_object_unref(sink_pad);
    gst_object_unref(first);

    // appsrc asks for each frame: the streaming thread carries it through
    // every element before it asks for the next.
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = [](GstAppSrc *appsrc, guint, gpointer data) {
      auto *self = static_cast<Run *>(data);
      if (self->complete_.load())
        gst_app_src_end_of_stream(appsrc);
      else
        gst_app_src_push_buffer(appsrc, ring->frame(self->pushed_++));
    };
    gst_app_src_set_callbacks(GST_APP_SRC(src), &callbacks, this, nullptr);
    Measured m;
    if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
      m.error = "the pipeline does not start";
    else
      m.error = bus_error();
    gst_object_unref(src);
    gst_object_unref(sink);
    if (!m.error.empty())
      return m;
    stamps_.finish();
    m.frames = window_frames_;
    m.wall_ns = double(wall_ns_) / double(window_frames_);
    m.cpu_ns = double(cpu_ns_) / double(window_frames_);
    m.gpu_stamp_ns = stamps_.per_frame_ns();
    m.gl_outputs = gl_outputs_;
    if (converter_)
      m.allocs_per_frame = double(chain_allocations_) / double(window_frames_);
    m.backend = backend_;
    m.shader = shader_;
    for (const auto &[name, delta] : stats_)
      m.stats[name] = double(delta) / double(window_frames_);
    return m;
  }

  // An error on the bus, or none before EOS within 120 s.
  std::string bus_error() {
    GstBus *bus = gst_element_get_bus(pipeline_);
    GstMessage *msg = gst_bus_timed_pop_filtered(
        bus, 120 * GST_SECOND, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
    gst_object_unref(bus);
    std::string text = msg ? "" : "no EOS within 120 s";
    if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      gst_message_parse_error(msg, &error, &debug);
      text = std::string(error->message) + (debug ? std::string(" (") + debug + ")" : "");
      g_error_free(error);
      g_free(debug);
    }
    if (msg)
      gst_message_unref(msg);
    return text;
  }

  static GstPadProbeReturn offer_system_pool(GstPad *, GstPadProbeInfo *info, gpointer) {
    GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
      return GST_PAD_PROBE_OK;
    GstCaps *caps = nullptr;
    gst_query_parse_allocation(query, &caps, nullptr);
    GstVideoInfo vinfo;
    GstCapsFeatures *features = caps ? gst_caps_get_features(caps, 0) : nullptr;
    if (!caps || !gst_video_info_from_caps(&vinfo, caps) ||
        (features && gst_caps_features_contains(features, GST_CAPS_FEATURE_MEMORY_GL_MEMORY)))
      return GST_PAD_PROBE_OK;
    GstBufferPool *pool = gst_video_buffer_pool_new();
    GstStructure *config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, guint(vinfo.size), 2, 0);
    gst_buffer_pool_set_config(pool, config);
    gst_query_add_allocation_pool(query, pool, guint(vinfo.size), 2, 0);
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
    gst_object_unref(pool);
    return GST_PAD_PROBE_HANDLED;
  }

  // Heap allocations from efconvert's sink pad to its source pad, on the
  // streaming thread that carries a frame through it (alloc_count.hpp),
  // over the window.
  void count_chain_allocations() {
    GstPad *in = gst_element_get_static_pad(converter_, "sink");
    GstPad *out = gst_element_get_static_pad(converter_, "src");
    gst_pad_add_probe(
        in, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer self) {
          auto *run = static_cast<Run *>(self);
          run->entered_ = ef::bench::thread_allocations();
          ef::bench::trace_thread(run->done_ >= kWarmup && run->window_frames_ == 0);
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
    gst_pad_add_probe(
        out, GST_PAD_PROBE_TYPE_BUFFER,
        [](GstPad *, GstPadProbeInfo *, gpointer self) {
          auto *run = static_cast<Run *>(self);
          if (run->done_ >= kWarmup && run->window_frames_ == 0)
            run->chain_allocations_ += ef::bench::thread_allocations() - run->entered_;
          ef::bench::trace_thread(false);
          return GST_PAD_PROBE_OK;
        },
        this, nullptr);
    gst_object_unref(in);
    gst_object_unref(out);
  }

  static GstPadProbeReturn on_enter(GstPad *, GstPadProbeInfo *, gpointer data) {
    auto *self = static_cast<Run *>(data);
    if (self->in_gpu_window())
      self->stamps_.begin();
    return GST_PAD_PROBE_OK;
  }

  // The consumer: reads a plain-memory output as inference would (which
  // completes gldownload's transfer), one byte a page.
  static GstPadProbeReturn on_output(GstPad *, GstPadProbeInfo *info, gpointer data) {
    auto *self = static_cast<Run *>(data);
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    // GL textures or GL buffers: they stay on the GPU, nothing maps them.
    const bool gl_memory = gst_is_gl_base_memory(gst_buffer_peek_memory(buffer, 0));
    if (!gl_memory) {
      GstMapInfo map;
      if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        unsigned sum = 0;
        for (gsize i = 0; i < map.size; i += 4096)
          sum += map.data[i];
        self->sink_sum_ += sum;
        gst_buffer_unmap(buffer, &map);
      }
    }
    if (self->in_gpu_window())
      self->stamps_.end();
    self->frame_done(gl_memory);
    return GST_PAD_PROBE_OK;
  }

  bool in_gpu_window() const {
    return window_frames_ != 0 && gpu_frames_ < kGpuFrames && stamps_.supported();
  }

  void frame_done(bool gl_memory) {
    const uint64_t n = ++done_;
    if (n == kWarmup) {
      read_stats(-1);
      wall_start_ = wall_now_ns();
      cpu_start_ = process_cpu_ns();
      return;
    }
    if (n < kWarmup)
      return;
    if (window_frames_ == 0) {
      gl_outputs_ += gl_memory;
      const uint64_t wall = wall_now_ns() - wall_start_;
      if (n - kWarmup < kMinFrames || double(wall) < kMinSeconds * 1e9)
        return;
      cpu_ns_ = process_cpu_ns() - cpu_start_;
      wall_ns_ = wall;
      read_stats(+1);
      window_frames_ = n - kWarmup;
      if (!stamps_.supported())
        complete_ = true;
      return;
    }
    if (++gpu_frames_ >= kGpuFrames)
      complete_ = true;
  }

  void read_stats(int sign) {
    if (!converter_)
      return;
    auto counters = ef::examples::element_stats(converter_);
    for (const char *name : kStats)
      stats_[name] += sign * int64_t(counters[name]);
    gchar *backend = nullptr;
    g_object_get(converter_, "backend-in-use", &backend, nullptr);
    backend_ = backend ? backend : "";
    g_free(backend);
    gchar *shader = nullptr;
    g_object_get(converter_, "gl-shader-in-use", &shader, nullptr);
    shader_ = shader ? shader : "";
    g_free(shader);
  }

  const Case case_;
  const Output output_;
  ef::bench::ContextAnswer answer_{};
  GpuStamps stamps_;
  GstElement *pipeline_ = nullptr;
  GstElement *converter_ = nullptr;
  std::map<std::string, int64_t> stats_;
  std::string backend_, shader_;
  uint64_t done_ = 0, window_frames_ = 0, gpu_frames_ = 0, gl_outputs_ = 0;
  uint64_t wall_start_ = 0, cpu_start_ = 0, wall_ns_ = 0, cpu_ns_ = 0;
  uint64_t sink_sum_ = 0, pushed_ = 0;
  uint64_t entered_ = 0, chain_allocations_ = 0;
  std::atomic<bool> complete_{false};
};

void BM_ConvertGl(benchmark::State &state, Case c, Output o) {
  for (auto _ : state) {
    Measured m = Run(c, o).run();
    if (!m.error.empty())
      return state.SkipWithError(m.error.c_str());
    if (c.readback_depth >= 0 && std::string(c.backend) == "gl" && m.backend != "gl")
      return state.SkipWithError(("efconvert ran backend " + m.backend).c_str());
    const bool efconvert = c.readback_depth >= 0;
    if (on_gpu(o) && m.gl_outputs != m.frames)
      return state.SkipWithError("an output was not GL memory");
    // GL memory in and out: nothing may be copied or read back.
    if (efconvert && on_gpu(o) &&
        (m.stats["uploads"] != 0 || m.stats["readbacks"] != 0 || m.stats["bytes-read"] != 0))
      return state.SkipWithError("efconvert copied or read back a GL-memory frame");
    state.SetIterationTime(m.wall_ns / 1e9);
    auto &counters = state.counters;
    counters["wall_us"] = m.wall_ns / 1e3;
    counters["cpu_us"] = m.cpu_ns / 1e3;
    counters["gpu_stamp_us"] = m.gpu_stamp_ns / 1e3;  // -1: no timestamps on this GL
    counters["frames"] = double(m.frames);
    if (efconvert) {
      const double timed = m.stats["gpu-frames"];
      counters["gpu_own_us"] = timed > 0 ? m.stats["gpu-time-ns"] / timed / 1e3 : -1;
      counters["gpu_readback_us"] = timed > 0 ? m.stats["readback-gpu-time-ns"] / timed / 1e3 : -1;
      counters["copies_per_frame"] = m.stats["uploads"] + m.stats["readbacks"];
      counters["readbacks_per_frame"] = m.stats["readbacks"];
      counters["bytes_read_per_frame"] = m.stats["bytes-read"];
      counters["uploads_per_frame"] = m.stats["uploads"];
      counters["dst_hits_per_frame"] = m.stats["dst-hits"];
      counters["allocs_per_frame"] = m.allocs_per_frame;
    }
    state.SetLabel(chain_of(c, o) +
                   (efconvert ? " (ran " + m.backend + ", " + m.shader + " shader)" : ""));
  }
}

// auto: compute on hardware GL, fragment on a software rasterizer; the
// fragment pass beside it, forced.
const Case kEfconvert{"efconvert-gl", 1};
const Case kEfconvertFragment{"efconvert-gl-fragment", 1, "fragment"};
const Case kEfconvertSync{"efconvert-gl-depth0", 0};
const Case kChain{"gl-chain", -1};
// The CPU backend on the same GL frames (it maps them for the CPU), and
// auto, which times both: what auto should pick for GL in, plain out.
const Case kCpu{"efconvert-cpu", 1, "auto", "cpu"};
const Case kAuto{"efconvert-auto", 1, "auto", "auto"};
// Plain tensors on hardware GL: the pass's stores straight into the pack
// memory output, against the default pass into GPU memory and a copy.
const Case kEfconvertDirect{"efconvert-gl-direct", 1, "auto", "gl", "direct"};

}  // namespace

int main(int argc, char **argv) {
  // GSlice's allocations too (GstBuffer, GstMeta), as bench_convert counts.
  ef::bench::ensure_slices_are_counted(argv);
  ef::examples::init_gstreamer(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  ProgramGl made_gl;
  if (!made_gl.error.empty()) {
    std::fprintf(stderr, "SKIP: %s (headless GstGL needs GST_GL_WINDOW=egl-device)\n",
                 made_gl.error.c_str());
    return 77;
  }
  gl = &made_gl;
  FrameRing made_ring(kSlots, "smpte", made_gl.context);
  if (!made_ring.error().empty()) {
    std::fprintf(stderr, "%s\n", made_ring.error().c_str());
    return 1;
  }
  ring = &made_ring;
  benchmark::AddCustomContext("gl_renderer", made_gl.renderer);
  benchmark::AddCustomContext("gl_version", made_gl.version);
  benchmark::AddCustomContext("input", "1920x1080 NV12 GL memory, a ring of 4 uploaded once");
  for (Output o : {Output::GlRgba, Output::Rgb, Output::Rgbp, Output::F32, Output::I8,
                   Output::GlF32, Output::GlI8}) {
    // Tensors: no GstGL chain makes them, and GL computes them or not at
    // all (no fragment case); as GL buffers, GL alone.
    std::vector<Case> cases{kEfconvert};
    if (!is_tensor(o))
      cases.insert(cases.end(), {kEfconvertFragment, kChain});
    if (!on_gpu(o))
      cases.insert(cases.end(), {kCpu, kAuto});
    if (!on_gpu(o))
      cases.insert(cases.begin() + 1, kEfconvertSync);
    if (is_tensor(o) && !on_gpu(o))
      cases.insert(cases.begin() + 1, kEfconvertDirect);
    for (const Case &c : cases)
      benchmark::RegisterBenchmark(
          (std::string("BM_ConvertGl/") + output_name(o) + "/" + c.name).c_str(), BM_ConvertGl, c,
          o)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(1);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ef::bench::tracing_wanted())  // EF_ALLOC_TRACE: where the chain's allocations come from
    ef::bench::print_traces(2);
  ring = nullptr;
  gl = nullptr;
  return 0;
}
