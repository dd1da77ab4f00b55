// SPDX-License-Identifier: LGPL-2.1-or-later
// Many streams at once (docs/BENCHMARKS.md, "Many streams"): N branches of
// one pipeline, or N processes of one branch each, each branch converting
// 1080p NV12 to 640x640 (RGB in plain memory, or RGBA in GL memory) with
// efconvert (gl or cpu) or the stock chain, side by side. What one run
// measures, over a window of fixed length after every branch has warmed
// up: aggregate frames a second, process CPU time per frame (getrusage, all
// threads: GstGL's, the driver's, efconvert's), the CPU time of each kind
// of thread (GL thread, driver threads, streaming threads, efconvert's
// workers), and efconvert's own counters per frame (GPU time of its
// passes, hand-overs to the GL thread, time on and waits of the GL thread,
// read-backs). One JSON object a run is appended to --json.
//
//   bench_streams --source=gl|sysmem|testsrc|decoder --chain=efconvert-gl|
//     efconvert-cpu|efconvert-cuda|efconvert-auto|stock|none|bandwidth|compute
//     --output=rgb|rgbp|glrgba|f32|f16|i8|u8|glf32 --streams=N
//     [--processes=P] [--depth=D] [--n-threads=T] [--shader=S]
//     [--seconds=S] [--warmup=F] [--clip=FILE.h264] [--display=app]
//     [--gpu-timing=1] [--gl-contexts=K] [--decoder-memory=gl|cuda|any]
//     [--label=NAME] [--json=FILE]
//
// Sources: gl, a ring of 4 frames uploaded once into the program's GL
// context (which every GL element is given, as a decoder's), pushed by an
// appsrc per branch; sysmem, the same frames in system memory; testsrc,
// one videotestsrc pattern=black teed to every branch (through a queue);
// decoder, filesrc ! h264parse ! nvh264dec to GL memory per branch (the GL
// context found as gst-launch finds it: one per process). With
// --processes=P each of P processes runs streams/P branches and the
// figures are summed; the windows of all processes are the same seconds.
// --display=app sets one GstGLDisplay on the pipeline before it starts (see
// share_display()); the JSON counts the GL contexts the elements use.
// --chain=bandwidth is the memory's limit for the CPU backend, measured
// beside it in the same run: no conversion, the sink of each branch (on
// its streaming thread, as efconvert n-threads=1 converts there) reads
// every cache line of the input frame and writes an RGB 640x640 output's
// bytes into the next of 4 buffers of its own (a pool's) with memset
// (glibc's fastest stores, which may skip reading the lines first, as
// efconvert's do not): the bytes a conversion moves at no arithmetic, an
// upper bound.
// --chain=compute is the CPUs' limit, beside it: the sink of each branch
// runs the box arithmetic of a letterboxed 1080p frame (efconvert's own
// kernels, luma 3:1 and chroma 1.5:1, as many rows as a frame) on rows that
// stay in L1, so no memory traffic at all: how a frame's arithmetic scales
// from 1 to N streams on this machine's CPUs, the part bandwidth leaves out.
// --gpu-timing=1 sets efconvert's gpu-timing (GL timer queries: gpu-time-ns;
// off by default, as in the element). --gl-contexts=K sets efconvert's
// gl-contexts (the GL contexts its elements share, taken at READY ->
// PAUSED; left at the element's default without it). --decoder-memory=cuda
// has the decoders give CUDA memory (NVDEC's own, no GL copy), which
// --chain=efconvert-cuda converts on the decoder's CUDA context; the
// decode-only baseline of the issue is GL memory. --decoder-memory=any
// leaves it to negotiation, as a gst-launch line does (with
// --chain=efconvert-auto: efconvert's backend=auto). --output (kOutputs):
// RGB, RGBP or GL RGBA at 640x640, or a model's tensor of it (float32 or
// float16 NCHW with ImageNet's mean and std, int8 or uint8 NHWC; glf32:
// float32 in a GL buffer). --label names the run in the JSON
// (streams_variants.sh). The EF_GL_* diagnostics set in the environment
// are recorded with the run ("setting").
#include <gst/app/gstappsrc.h>
#include <gst/gl/gl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frame_rings.hpp"
#include "upload_run.hpp"
#ifdef EF_BENCH_BOX
#include "efconvert/backends/cpu/cpu_box.hpp"
#endif

namespace {

constexpr guint kSlots = 4;
constexpr int kOut = 640;

struct Options {
  std::string source = "gl", chain = "efconvert-gl", output = "rgb";
  int streams = 1, processes = 1, depth = 1, n_threads = 0;
  std::string shader = "auto", clip, json;
  bool app_display = false;           // one GstGLDisplay set on the pipeline by the program
  bool gpu_timing = false;            // efconvert gpu-timing=true
  int gl_contexts = -1;               // efconvert gl-contexts (-1: left at its default)
  std::string decoder_memory = "gl";  // the decoders' output: GL or CUDA memory
  bool letterbox = false;  // efconvert letterbox=true (its default; the stock chains stretch)
  std::string label;
  double seconds = 3.0;
  int warmup = 10;
};

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos)
      return false;
    const std::string key = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    if (key == "source")
      o.source = value;
    else if (key == "chain")
      o.chain = value;
    else if (key == "output")
      o.output = value;
    else if (key == "streams")
      o.streams = std::stoi(value);
    else if (key == "processes")
      o.processes = std::stoi(value);
    else if (key == "depth")
      o.depth = std::stoi(value);
    else if (key == "n-threads")
      o.n_threads = std::stoi(value);
    else if (key == "shader")
      o.shader = value;
    else if (key == "seconds")
      o.seconds = std::stod(value);
    else if (key == "warmup")
      o.warmup = std::stoi(value);
    else if (key == "clip")
      o.clip = value;
    else if (key == "display")
      o.app_display = value == "app";
    else if (key == "gpu-timing")
      o.gpu_timing = value == "1" || value == "true";
    else if (key == "gl-contexts")
      o.gl_contexts = std::stoi(value);
    else if (key == "letterbox")
      o.letterbox = value == "1" || value == "true";
    else if (key == "decoder-memory")
      o.decoder_memory = value;
    else if (key == "label")
      o.label = value;
    else if (key == "json")
      o.json = value;
    else
      return false;
  }
  return o.streams > 0 && o.processes > 0 && o.streams % o.processes == 0;
}

bool gl_input(const Options &o) {
  return o.source == "gl" || o.source == "decoder";
}

// --output: what each branch's efconvert makes, its caps and the
// properties it needs (a model's normalisation: ImageNet's mean and std).
struct OutputKind {
  const char *name;
  const char *caps;  // "" for video: format and the size follow
  const char *properties;
};

constexpr const char *kImageNet =
    " mean=\"<123.675, 116.28, 103.53>\" std=\"<58.395, 57.12, 57.375>\"";

constexpr OutputKind kOutputs[] = {
    {"rgb", "video/x-raw,format=RGB", ""},
    {"rgbp", "video/x-raw,format=RGBP", ""},
    {"glrgba", "video/x-raw(memory:GLMemory),format=RGBA", ""},
    {"f32", "other/tensors,format=static,num_tensors=1,types=float32,dimensions=640:640:3:1",
     kImageNet},
    {"f16", "other/tensors,format=static,num_tensors=1,types=float16,dimensions=640:640:3:1",
     kImageNet},
    {"i8", "other/tensors,format=static,num_tensors=1,types=int8,dimensions=3:640:640:1", ""},
    {"u8", "other/tensors,format=static,num_tensors=1,types=uint8,dimensions=3:640:640:1", ""},
    {"glf32",
     "other/tensors(memory:GLBuffer),format=static,num_tensors=1,types=float32,"
     "dimensions=640:640:3:1",
     kImageNet},
};

const OutputKind *output_kind(const std::string &name) {
  for (const OutputKind &kind : kOutputs)
    if (name == kind.name)
      return &kind;
  return nullptr;
}

bool tensor_output(const Options &o) {
  return std::string(output_kind(o.output)->caps).rfind("other/tensors", 0) == 0;
}

std::string output_caps(const Options &o) {
  const std::string size = ",width=" + std::to_string(kOut) + ",height=" + std::to_string(kOut) +
                           ",pixel-aspect-ratio=1/1";
  const OutputKind &kind = *output_kind(o.output);
  return kind.caps + (tensor_output(o) ? std::string() : size);
}

// The chain of branch i between its source and its sink ("" for none).
// glcolorscale stretches (it cannot letterbox), so efconvert stretches too,
// unless --letterbox=1 (efconvert's default: 1080p into 640x360 and borders,
// an exact 3:1 reduction).
std::string chain_of(const Options &o, int i) {
  const std::string caps = " ! capsfilter caps=\"" + output_caps(o) + "\"";
  const std::string name = " name=conv" + std::to_string(i) +
                           (o.letterbox ? " letterbox=true" : " letterbox=false") +
                           output_kind(o.output)->properties;
  if (o.chain == "efconvert-gl")
    return "efconvert" + name + " backend=gl readback-depth=" + std::to_string(o.depth) +
           " gl-shader=" + o.shader + (o.gpu_timing ? " gpu-timing=true" : "") +
           (o.gl_contexts >= 0 ? " gl-contexts=" + std::to_string(o.gl_contexts) : "") + caps;
  // cuda's gl-contexts: the GL threads of its GL-memory outputs; auto: what
  // a gst-launch line gets, its backend and memory negotiated.
  if (o.chain == "efconvert-cuda" || o.chain == "efconvert-auto")
    return "efconvert" + name + (o.chain == "efconvert-cuda" ? " backend=cuda" : " backend=auto") +
           (o.gl_contexts >= 0 ? " gl-contexts=" + std::to_string(o.gl_contexts) : "") + caps;
  if (o.chain == "efconvert-cpu")
    return "efconvert" + name + " backend=cpu n-threads=" + std::to_string(o.n_threads) + caps;
  if (o.chain == "stock" && gl_input(o)) {
    const std::string scaled =
        "glcolorconvert ! video/x-raw(memory:GLMemory),format=RGBA ! glcolorscale ! "
        "capsfilter caps=\"video/x-raw(memory:GLMemory),format=RGBA,width=" +
        std::to_string(kOut) + ",height=" + std::to_string(kOut) + ",pixel-aspect-ratio=1/1\"";
    return o.output == "glrgba" ? scaled : scaled + " ! gldownload ! videoconvert" + caps;
  }
  if (o.chain == "stock")
    return "videoconvert ! videoscale" + caps;
  return "";
}

std::string source_of(const Options &o, int i) {
  const std::string n = std::to_string(i);
  if (o.source == "decoder") {
    // EF_BENCH_DECODER: another decoder to GL memory where there is no
    // nvh264dec (e.g. "avdec_h264 ! glupload"), to try the runs out.
    const char *decoder = g_getenv("EF_BENCH_DECODER");
    const std::string memory =
        o.decoder_memory == "any"
            ? ""
            : " ! video/x-raw(memory:" +
                  std::string(o.decoder_memory == "cuda" ? "CUDAMemory" : "GLMemory") + ")";
    return "filesrc location=\"" + o.clip + "\" ! h264parse ! " +
           (decoder ? decoder : "nvh264dec") + memory;
  }
  if (o.source == "testsrc")
    return "t. ! queue name=q" + n;
  return "appsrc name=src" + n + " format=time";
}

std::string pipeline_of(const Options &o, int streams) {
  std::string d;
  if (o.source == "testsrc")
    d = "videotestsrc pattern=black ! "
        "video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! tee name=t ";
  for (int i = 0; i < streams; ++i) {
    const std::string chain = chain_of(o, i);
    d += source_of(o, i) + (chain.empty() ? "" : " ! " + chain) + " ! fakesink name=sink" +
         std::to_string(i) + " sync=false async=false enable-last-sample=false ";
  }
  return d;
}

uint64_t now_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

uint64_t process_cpu_ns() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto ns = [](const timeval &t) {
    return uint64_t(t.tv_sec) * 1'000'000'000u + t.tv_usec * 1000u;
  };
  return ns(u.ru_utime) + ns(u.ru_stime);
}

// CPU time of the process's threads by kind: the name without its digits
// ("queue12:src" and "queue3:src" are "queue:src"), from /proc. Threads
// that ended within the window are missed (a driver's threads take the
// name of the thread that made them: Mesa's under a GL thread are
// "gstglcontext" too).
std::map<std::string, uint64_t> thread_cpu_ns() {
  std::map<std::string, uint64_t> by_kind;
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return by_kind;
  const double tick_ns = 1e9 / double(sysconf(_SC_CLK_TCK));
  while (dirent *e = readdir(dir)) {
    if (e->d_name[0] == '.')
      continue;
    std::ifstream stat(std::string("/proc/self/task/") + e->d_name + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos)
      continue;
    std::string name;
    for (char c : line.substr(open + 1, close - open - 1))
      if (c < '0' || c > '9')
        name += c;
    std::istringstream rest(line.substr(close + 2));
    std::string field;
    uint64_t utime = 0, stime = 0;
    for (int k = 3; rest >> field; ++k) {  // field 3 is the state
      if (k == 14)
        utime = std::stoull(field);
      if (k == 15) {
        stime = std::stoull(field);
        break;
      }
    }
    by_kind[name] += uint64_t(double(utime + stime) * tick_ns);
  }
  closedir(dir);
  return by_kind;
}

// efconvert's counters summed over the run's elements; those a build does
// not have are left out.
constexpr const char *kCounters[] = {"frames",
                                     "readbacks",
                                     "uploads",
                                     "bytes-read",
                                     "gpu-time-ns",
                                     "gpu-frames",
                                     "readback-gpu-time-ns",
                                     "gl-handovers",
                                     "gl-thread-ns",
                                     "gl-wait-ns",
                                     "gpu-wait-ns",
                                     "gl-source-ns",
                                     "gl-pass-ns",
                                     "gl-readback-ns"};

struct Snapshot {
  uint64_t wall = 0, cpu = 0, frames = 0;
  std::map<std::string, uint64_t> threads, counters;
};

// One process's share of a run: its pipeline of `streams` branches.
class Streams {
 public:
  Streams(const Options &o, int streams) : o_(o), n_(streams), counts_(size_t(streams)) {}
  ~Streams() {
    if (pipeline_)
      gst_element_set_state(pipeline_, GST_STATE_NULL);
    if (display_)
      gst_object_unref(display_);
    // Every element let go before the program's GL context: a context still
    // referenced at exit keeps its driver threads running while the driver
    // is unloaded.
    for (GstElement *conv : converters_)
      gst_object_unref(conv);
    if (pipeline_)
      gst_object_unref(pipeline_);
  }

  std::string prepare() {
#ifndef EF_BENCH_BOX
    if (o_.chain == "compute")
      return "--chain=compute needs efconvert's CPU kernels (a build with libyuv)";
#endif
    if (o_.source == "gl") {
      gl_ = std::make_unique<ef::bench::ProgramGl>();
      if (!gl_->error.empty())
        return gl_->error;
      ring_ = std::make_unique<ef::bench::FrameRing>(kSlots, "smpte", gl_->context);
    } else if (o_.source == "sysmem") {
      ring_ = std::make_unique<ef::bench::FrameRing>(kSlots, "smpte");
    }
    if (ring_ && !ring_->error().empty())
      return ring_->error();
    GError *raw = nullptr;
    pipeline_ = gst_parse_launch(pipeline_of(o_, n_).c_str(), &raw);
    if (raw) {
      std::string e = raw->message;
      g_clear_error(&raw);
      return "cannot make the pipeline: " + e;
    }
    answers_.resize(size_t(n_));
    for (int i = 0; i < n_; ++i) {
      hook_sink(i);
      hook_source(i);
      if (GstElement *conv = by_name("conv", i))
        converters_.push_back(conv);
    }
    if (o_.app_display)
      share_display();
    if (gst_element_set_state(pipeline_, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
      return "the pipeline does not start: " + bus_error();
    return {};
  }

  // Until every branch delivered the warm-up frames (120 s at most).
  std::string warm_up() {
    const uint64_t until = now_ns() + 120'000'000'000u;
    for (;;) {
      bool warm = true;
      for (const Count &c : counts_)
        warm = warm && c.frames.load() >= uint64_t(o_.warmup);
      if (warm)
        return {};
      if (std::string e = bus_error(); !e.empty())
        return e;
      if (now_ns() > until)
        return "not every branch delivered " + std::to_string(o_.warmup) + " frames in 120 s";
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  Snapshot snapshot() {
    Snapshot s;
    s.wall = now_ns();
    s.cpu = process_cpu_ns();
    for (const Count &c : counts_)
      s.frames += c.frames.load();
    s.threads = thread_cpu_ns();
    for (GstElement *conv : converters_) {
      auto counters = ef::examples::element_stats(conv);
      for (const char *name : kCounters)
        if (auto it = counters.find(name); it != counters.end())
          s.counters[name] += it->second;
    }
    return s;
  }

  // The window: `seconds`, or until a branch ends (a decoded clip).
  std::string window() {
    const uint64_t until = now_ns() + uint64_t(o_.seconds * 1e9);
    while (now_ns() < until) {
      for (const Count &c : counts_)
        if (c.eos.load())
          return {};
      if (std::string e = bus_error(); !e.empty())
        return e;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return {};
  }

  std::string property(const char *name) {
    if (converters_.empty())
      return "";
    gchar *v = nullptr;
    g_object_get(converters_[0], name, &v, nullptr);
    std::string s = v ? v : "";
    g_free(v);
    return s;
  }

  std::string renderer() const {
    return gl_ ? gl_->renderer : "";
  }

  // How many GL contexts (each a GL thread) the pipeline's elements use:
  // the distinct ones they answer a local-context query with (GstGL's
  // elements, nvh264dec and efconvert answer it).
  int gl_contexts() {
    std::vector<GstGLContext *> seen;
    GstIterator *it = gst_bin_iterate_recurse(GST_BIN(pipeline_));
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
      GstElement *element = GST_ELEMENT(g_value_get_object(&item));
      GstQuery *query = gst_query_new_context("gst.gl.local_context");
      GstGLContext *context = nullptr;
      GstContext *answer = nullptr;
      if (gst_element_query(element, query)) {
        gst_query_parse_context(query, &answer);
        if (answer)
          gst_structure_get(gst_context_get_structure(answer), "context", GST_TYPE_GL_CONTEXT,
                            &context, nullptr);
      }
      gst_query_unref(query);
      if (context && std::find(seen.begin(), seen.end(), context) == seen.end())
        seen.push_back(context);
      if (context)
        gst_object_unref(context);  // the elements keep theirs: pointers compared only
      g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return int(seen.size());
  }

 private:
  struct Count {
    std::atomic<uint64_t> frames{0};
    std::atomic<bool> eos{false};
    uint64_t pushed = 0;
    Streams *self = nullptr;
    std::vector<std::vector<uint8_t>> outputs;  // --chain=bandwidth's "pool"
    size_t next = 0;
  };

  // One GstGLDisplay for every element, set on the pipeline before it
  // starts, as an application may: elements that start at once otherwise
  // each find no display yet and make their own, a GL context (and GL
  // thread) with each; on one display they find each other's context.
  void share_display() {
    display_ = gst_gl_display_new();
    GstContext *context = gst_context_new(GST_GL_DISPLAY_CONTEXT_TYPE, TRUE);
    gst_context_set_gl_display(context, display_);
    gst_element_set_context(pipeline_, context);
    gst_context_unref(context);
  }

  GstElement *by_name(const char *prefix, int i) {
    return gst_bin_get_by_name(GST_BIN(pipeline_), (prefix + std::to_string(i)).c_str());
  }

  // The consumer: reads a plain-memory output as inference would (which
  // completes a lazy download), one byte a page; GL memory (textures, or a
  // tensor's GL buffer) stays where it is; counts; sees EOS.
  void hook_sink(int i) {
    GstElement *sink = by_name("sink", i);
    GstPad *pad = gst_element_get_static_pad(sink, "sink");
    counts_[size_t(i)].self = this;
    if (o_.chain == "bandwidth")
      counts_[size_t(i)].outputs.assign(4, std::vector<uint8_t>(size_t(kOut) * kOut * 3));
    gst_pad_add_probe(
        pad, GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
        on_output, &counts_[size_t(i)], nullptr);
    gst_object_unref(pad);
    gst_object_unref(sink);
  }

  static GstPadProbeReturn on_output(GstPad *, GstPadProbeInfo *info, gpointer data) {
    auto *count = static_cast<Count *>(data);
    if (info->type & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
      if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS)
        count->eos.store(true);
      return GST_PAD_PROBE_OK;
    }
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    if (count->self->o_.chain == "compute") {
      count->self->sink_sum_ += box_arithmetic();
    } else if (!count->outputs.empty()) {
      move_bytes(buffer, *count);
    } else if (!gst_is_gl_base_memory(gst_buffer_peek_memory(buffer, 0))) {
      GstMapInfo map;
      if (gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        unsigned sum = 0;
        for (gsize k = 0; k < map.size; k += 4096)
          sum += map.data[k];
        count->self->sink_sum_ += sum;
        gst_buffer_unmap(buffer, &map);
      }
    }
    count->frames.fetch_add(1);
    return GST_PAD_PROBE_OK;
  }

  // --chain=compute: a letterboxed frame's box arithmetic on three source
  // rows of luma and three of chroma pairs (11.5 KB: L1), 360 and 180 times.
  static unsigned box_arithmetic() {
#ifdef EF_BENCH_BOX
    thread_local std::vector<uint8_t> luma(3 * 1920, 77), pairs(3 * 1920, 131), out(4 * 640);
    for (int y = 0; y < 360; ++y)
      ef::gst::cpu::box3_plane(luma.data(), 1920, out.data(), 640, 640, 1);
    for (int y = 0; y < 180; ++y)
      ef::gst::cpu::box32_uv(pairs.data(), 1920, out.data(), 640, out.data() + 1280, 640, 320, 1,
                             true);
    return out[640];
#else
    return 0;
#endif
  }

  // --chain=bandwidth: the input's every cache line read, an output's
  // bytes written.
  static void move_bytes(GstBuffer *buffer, Count &count) {
    GstMapInfo map;
    if (!gst_buffer_map(buffer, &map, GST_MAP_READ))
      return;
    uint64_t sum = 0;
    for (gsize k = 0; k + 8 <= map.size; k += 64) {
      uint64_t word;
      std::memcpy(&word, map.data + k, 8);
      sum += word;
    }
    gst_buffer_unmap(buffer, &map);
    std::vector<uint8_t> &out = count.outputs[count.next++ % count.outputs.size()];
    std::memset(out.data(), int(sum & 0xff), out.size());
    count.self->sink_sum_ += unsigned(sum);
  }

  // An appsrc pushes ring frames whenever it asks, timestamped at 30 fps.
  void hook_source(int i) {
    GstElement *src = by_name("src", i);
    if (!src)
      return;
    g_object_set(src, "caps", ring_->caps(), nullptr);
    if (gl_) {
      answers_[size_t(i)] = {src, gl_.get()};
      GstPad *pad = gst_element_get_static_pad(src, "src");
      gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM, ef::bench::answer_gl_context,
                        &answers_[size_t(i)], nullptr);
      gst_object_unref(pad);
    }
    GstAppSrcCallbacks callbacks{};
    callbacks.need_data = [](GstAppSrc *appsrc, guint, gpointer data) {
      auto *count = static_cast<Count *>(data);
      GstBuffer *frame = count->self->ring_->frame(count->pushed);
      // Ring frames are shared by every branch: a timestamp needs a buffer of its own.
      GstBuffer *stamped = gst_buffer_copy(frame);
      gst_buffer_unref(frame);
      GST_BUFFER_PTS(stamped) = gst_util_uint64_scale_int(GST_SECOND, int(count->pushed), 30);
      GST_BUFFER_DURATION(stamped) = gst_util_uint64_scale_int(GST_SECOND, 1, 30);
      count->pushed++;
      gst_app_src_push_buffer(appsrc, stamped);
    };
    gst_app_src_set_callbacks(GST_APP_SRC(src), &callbacks, &counts_[size_t(i)], nullptr);
    gst_object_unref(src);
  }

  std::string bus_error() {
    GstBus *bus = gst_element_get_bus(pipeline_);
    GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    gst_object_unref(bus);
    if (!msg)
      return {};
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(msg, &error, &debug);
    std::string text = std::string(error->message) + (debug ? std::string(" (") + debug + ")" : "");
    g_error_free(error);
    g_free(debug);
    gst_message_unref(msg);
    return text;
  }

  const Options &o_;
  const int n_;
  std::unique_ptr<ef::bench::ProgramGl> gl_;
  GstGLDisplay *display_ = nullptr;  // --display=app
  std::unique_ptr<ef::bench::FrameRing> ring_;
  std::vector<ef::bench::ContextAnswer> answers_;
  GstElement *pipeline_ = nullptr;
  std::vector<GstElement *> converters_;  // references of ours
  std::vector<Count> counts_;
  std::atomic<uint64_t> sink_sum_{0};
};

// What one process measured, as one line of JSON fields (no braces).
struct Share {
  std::string error;
  double seconds = 0;
  uint64_t frames = 0, cpu_ns = 0;
  int gl_threads = 0;  // distinct GL contexts the pipeline's elements use
  std::map<std::string, uint64_t> threads, counters;
  std::string backend, shader, renderer;
};

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out;
}

Share measure(const Options &o, int streams, const std::function<void()> &barrier) {
  Share share;
  Streams run(o, streams);
  share.error = run.prepare();
  if (share.error.empty())
    share.error = run.warm_up();
  barrier();  // every process warm (or failed) before any window starts
  if (!share.error.empty())
    return share;
  const Snapshot a = run.snapshot();
  share.error = run.window();
  const Snapshot b = run.snapshot();
  share.seconds = double(b.wall - a.wall) / 1e9;
  share.frames = b.frames - a.frames;
  share.cpu_ns = b.cpu - a.cpu;
  share.gl_threads = run.gl_contexts();
  for (const auto &[k, v] : b.threads)
    share.threads[k] = v - (a.threads.count(k) ? a.threads.at(k) : 0);
  for (const auto &[k, v] : b.counters)
    share.counters[k] = v - a.counters.at(k);
  share.backend = run.property("backend-in-use");
  share.shader = run.property("gl-shader-in-use");
  share.renderer = run.renderer();
  return share;
}

// A share as text for the pipe from a child, and back.
std::string encode(const Share &s) {
  std::ostringstream out;
  out << s.seconds << ' ' << s.frames << ' ' << s.cpu_ns << ' ' << s.gl_threads << ' '
      << s.threads.size() << ' ' << s.counters.size() << '\n';
  for (const auto &[k, v] : s.threads)
    out << k << '\t' << v << '\n';
  for (const auto &[k, v] : s.counters)
    out << k << '\t' << v << '\n';
  out << s.backend << '\n' << s.shader << '\n' << s.renderer << '\n' << s.error << '\n';
  return out.str();
}

Share decode(const std::string &text) {
  Share s;
  std::istringstream in(text);
  size_t n_threads = 0, n_counters = 0;
  if (!(in >> s.seconds >> s.frames >> s.cpu_ns >> s.gl_threads >> n_threads >> n_counters)) {
    s.error = "a process reported nothing (crashed?)";
    return s;
  }
  std::string line;
  std::getline(in, line);
  auto pairs = [&](size_t n, std::map<std::string, uint64_t> &into) {
    for (size_t i = 0; i < n && std::getline(in, line); ++i) {
      const size_t tab = line.find('\t');
      into[line.substr(0, tab)] = std::stoull(line.substr(tab + 1));
    }
  };
  pairs(n_threads, s.threads);
  pairs(n_counters, s.counters);
  std::getline(in, s.backend);
  std::getline(in, s.shader);
  std::getline(in, s.renderer);
  std::getline(in, s.error);
  return s;
}

// P processes of streams/P branches: each warms up, reports, waits for the
// word, measures its window and reports its share.
std::vector<Share> measure_processes(const Options &o, int *argc, char ***argv) {
  const int per = o.streams / o.processes;
  std::vector<pid_t> pids;
  std::vector<int> reports, words;
  for (int p = 0; p < o.processes; ++p) {
    int up[2], down[2];
    if (pipe(up) != 0 || pipe(down) != 0) {
      Share failed;
      failed.error = "pipe failed";
      return {failed};
    }
    const pid_t pid = fork();
    if (pid == 0) {
      close(up[0]);
      close(down[1]);
      ef::examples::init_gstreamer(argc, argv);
      const Share s = measure(o, per, [&] {
        char c = 'w';
        if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
          _exit(3);
      });
      const std::string text = encode(s);
      if (write(up[1], text.data(), text.size()) < 0)
        _exit(2);
      _exit(0);
    }
    close(up[1]);
    close(down[0]);
    pids.push_back(pid);
    reports.push_back(up[0]);
    words.push_back(down[1]);
  }
  for (int fd : reports) {
    char c;
    if (read(fd, &c, 1) != 1)
      break;
  }
  for (int fd : words) {
    char c = 'g';
    if (write(fd, &c, 1) != 1)
      break;
    close(fd);
  }
  std::vector<Share> shares;
  for (size_t p = 0; p < pids.size(); ++p) {
    std::string text;
    char buf[4096];
    ssize_t n;
    while ((n = read(reports[p], buf, sizeof buf)) > 0)
      text.append(buf, size_t(n));
    close(reports[p]);
    waitpid(pids[p], nullptr, 0);
    shares.push_back(decode(text));
  }
  return shares;
}

void report(const Options &o, const std::vector<Share> &shares) {
  Share sum;
  double fps = 0;
  for (const Share &s : shares) {
    if (!s.error.empty() && sum.error.empty())
      sum.error = s.error;
    fps += s.seconds > 0 ? double(s.frames) / s.seconds : 0;
    sum.frames += s.frames;
    sum.cpu_ns += s.cpu_ns;
    sum.gl_threads += s.gl_threads;
    sum.seconds = std::max(sum.seconds, s.seconds);
    for (const auto &[k, v] : s.threads)
      sum.threads[k] += v;
    for (const auto &[k, v] : s.counters)
      sum.counters[k] += v;
    if (sum.backend.empty()) {
      sum.backend = s.backend;
      sum.shader = s.shader;
      sum.renderer = s.renderer;
    }
  }
  const double frames = double(std::max<uint64_t>(sum.frames, 1));
  // The diagnostic settings of the run (docs/ARCHITECTURE.md, efconvert's
  // GL diagnostics), and gpu-timing.
  std::string setting;
  for (const char *name : {"EF_GL_FENCES", "EF_GL_GPU_TIMER", "EF_GL_RENDERER_KIND", "EF_GL_EARLY",
                           "EF_GL_BARRIER", "EF_GL_SCRATCH", "EF_GL_FLUSH", "EF_CUDA_READBACK"})
    if (const char *value = g_getenv(name))
      setting += std::string(setting.empty() ? "" : " ") + name + "=" + value;
  if (o.gpu_timing)
    setting += std::string(setting.empty() ? "" : " ") + "gpu-timing=true";
  if (o.gl_contexts >= 0 && o.chain.rfind("efconvert-", 0) == 0 && o.chain != "efconvert-cpu")
    setting +=
        std::string(setting.empty() ? "" : " ") + "gl-contexts=" + std::to_string(o.gl_contexts);
  if (o.letterbox && o.chain.rfind("efconvert", 0) == 0)
    setting += std::string(setting.empty() ? "" : " ") + "letterbox=true";
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  std::ostringstream j;
  j << "{\"label\": \"" << escape(o.label) << "\", \"source\": \"" << o.source
    << "\", \"decoder_memory\": \"" << o.decoder_memory << "\", \"chain\": \"" << o.chain
    << "\", \"output\": \"" << o.output << "\", \"streams\": " << o.streams
    << ", \"processes\": " << o.processes << ", \"depth\": " << o.depth
    << ", \"n_threads\": " << o.n_threads << ", \"shader\": \"" << o.shader << "\", \"display\": \""
    << (o.app_display ? "app" : "pipeline") << "\", \"setting\": \"" << escape(setting)
    << "\", \"cpus\": " << cpus << ", \"seconds\": " << sum.seconds
    << ", \"frames\": " << sum.frames << ", \"fps\": " << fps
    << ", \"gl_contexts\": " << sum.gl_threads
    << ", \"cpu_us_per_frame\": " << double(sum.cpu_ns) / frames / 1e3
    << ", \"cpu_busy\": " << double(sum.cpu_ns) / 1e9 / std::max(sum.seconds, 1e-9) / double(cpus)
    << ", \"backend\": \"" << sum.backend << "\", \"shader_in_use\": \"" << sum.shader
    << "\", \"renderer\": \"" << escape(sum.renderer) << "\", \"error\": \"" << escape(sum.error)
    << "\", \"per_frame\": {";
  const char *sep = "";
  for (const auto &[k, v] : sum.counters) {
    j << sep << "\"" << k << "\": " << double(v) / frames;
    sep = ", ";
  }
  j << "}, \"thread_cpu_us_per_frame\": {";
  sep = "";
  for (const auto &[k, v] : sum.threads)
    if (v > 0) {
      j << sep << "\"" << escape(k) << "\": " << double(v) / frames / 1e3;
      sep = ", ";
    }
  j << "}}";
  std::printf("%s\n", j.str().c_str());
  if (!o.json.empty()) {
    std::ofstream out(o.json, std::ios::app);
    out << j.str() << '\n';
  }
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: bench_streams --source=gl|sysmem|testsrc|decoder "
                 "--chain=efconvert-gl|efconvert-cpu|efconvert-cuda|efconvert-auto|stock|none|"
                 "bandwidth|compute "
                 "--output=rgb|rgbp|glrgba|f32|f16|i8|u8|glf32 --streams=N "
                 "[--processes=P (divides N)] [--depth=D] [--n-threads=T] [--shader=S] "
                 "[--seconds=S] [--warmup=F] [--clip=FILE] [--display=app] [--gpu-timing=1] "
                 "[--gl-contexts=K] [--letterbox=1] [--decoder-memory=gl|cuda|any] [--label=NAME] "
                 "[--json=FILE]\n");
    return 2;
  }
  if (!output_kind(o.output) || (o.chain == "stock" && tensor_output(o))) {
    std::fprintf(stderr, "--output=%s: no such output%s\n", o.output.c_str(),
                 o.chain == "stock" ? " of the stock chain" : "");
    return 2;
  }
  if (o.source == "decoder" && o.clip.empty()) {
    std::fprintf(stderr, "--source=decoder needs --clip\n");
    return 2;
  }
  std::vector<Share> shares;
  if (o.processes > 1) {
    shares = measure_processes(o, &argc, &argv);
  } else {
    ef::examples::init_gstreamer(&argc, &argv);
    shares.push_back(measure(o, o.streams, [] {}));
  }
  report(o, shares);
  for (const Share &s : shares)
    if (!s.error.empty())
      return 1;
  return 0;
}
