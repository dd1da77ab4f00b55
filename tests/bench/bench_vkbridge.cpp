// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge into Vulkan against stock vulkanupload on the same 1080p memfd
// frames, and the slot gate's arm -> producer wake latency, in one run.
// docs/BENCHMARKS.md ("efvkbridge") says what each figure measures and gives the figures measured;
// scripts/bench.sh runs this and plots it with plot_vkbridge.py.
//
// Pipeline cases (BM_Bridge/FORMAT/CASE), one iteration = one run of
//   appsrc ! ELEMENT [! capsfilter] ! appsink
// fed from a ring of 4 memfds (examples/common/memfd_ring.hpp), kWarmup
// frames, then kFrames measured. An application thread pulls each sample,
// arms its GstEfVkImageMeta gate (gst_ef_vk_image_meta_release) and drops it:
//   hit           efvkbridge, the ring's 4 buffers over and over (cache hits)
//   miss          efvkbridge cache-capacity=0 on the same ring: every frame
//                 imports (VkDeviceMemory + VkImage per plane) and frees it
//   fresh         efvkbridge, a new memfd every frame (a buffer never seen)
//   vulkanupload  stock vulkanupload (gst-plugins-bad 1.22) to
//                 memory:VulkanImage, which copies every frame
//   identity      no Vulkan: the baseline for the process CPU time
// Manual time = the element's CPU time per frame on the threads it runs on
// (its chain on the streaming thread + the application thread's pull, arm and
// drop); counters add the process CPU and wall time per frame and the
// element's own counters per frame.
//
// Latency cases, one iteration = one wake:
//   BM_GateArmToWake/ring     ef::SlotRing: a producer blocked in acquire(),
//                             a consumer on another CPU arms (bench_core's)
//   BM_GateArmToWake/element  through efvkbridge: a producer blocked in
//                             gst_buffer_pool_acquire_buffer() on a 2-buffer
//                             memfd pool, both buffers out; the application
//                             (fakesink's handoff) arms frame k's gate; timed
//                             until the producer has that buffer back
// Raw limit (BM_RawImport/FORMAT/PATH): the import done by hand, as a miss
// does it (vkAllocateMemory import, vkCreateImage per plane, bind, then
// destroy and free), against BM_CacheLookup: an ImportCache hit validated
// against the memfd as the element validates every frame.
//
//   bench_vkbridge [--unpinned] [Google Benchmark options]
//
// The pipeline cases run with every thread on one CPU unless --unpinned
// (as bench_upload, for the same reason); the latency cases pin their
// producer and consumer to two different CPUs.
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/ef/gstef.h>
#include <gst/ef/gstefvkimage.h>
#include <gst/video/video.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include "ef/identity.hpp"
#include "ef/import_cache.hpp"
#include "bench_threads.hpp"
#include "gate_latency.hpp"
#include "memfd_ring.hpp"
#include "upload_run.hpp"

using namespace ef::bench;
using namespace ef::examples;

namespace {

constexpr guint kWidth = 1920, kHeight = 1080;
constexpr guint kSlots = 4;
constexpr uint64_t kWarmup = 30;
constexpr uint64_t kFrames = 300;
// Frames the producer may have pushed that the application has not dropped yet.
constexpr uint64_t kInFlight = 2;
constexpr GstClockTime kPullTimeout = 10 * GST_SECOND;
constexpr uint64_t kLatencyWakes = 500;
// Host-pointer imports (the NVIDIA driver's only way in for a memfd) take
// whole pages: the ring's memfds are rounded up, as efvkbridge's own pools are.
constexpr gsize kPage = 4096;

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

GstVideoInfo frame_info(GstVideoFormat format) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, kWidth, kHeight);
  return info;
}

// The same info with its size rounded up to whole pages: MemfdRing sizes its
// memfds and memories by info.size, the strides and offsets stay as they are.
GstVideoInfo paged(GstVideoInfo info) {
  info.size = (info.size + kPage - 1) / kPage * kPage;
  return info;
}

std::string string_property(GstElement *element, const char *name) {
  if (!element || !g_object_class_find_property(G_OBJECT_GET_CLASS(element), name))
    return "";
  gchar *value = nullptr;
  g_object_get(element, name, &value, nullptr);
  std::string s = value ? value : "";
  g_free(value);
  return s;
}

// The CPUs the process may use: the whole set, before main() pins itself.
std::optional<cpu_set_t> g_allowed;

// --- Frame sources --------------------------------------------------------------

enum class Source { Ring, Fresh };

// A new memfd for every frame, never seen before, wrapped as the ring wraps
// its slots. Not painted: a fresh buffer's import is what is measured.
class FreshFrames {
 public:
  explicit FreshFrames(const GstVideoInfo &info)
      : info_(info), dmabuf_(gst_dmabuf_allocator_new()) {}
  ~FreshFrames() { gst_object_unref(dmabuf_); }
  GstBuffer *frame() {
    int fd = memfd_create("ef-bench-fresh", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, off_t(info_.size)) != 0) {
      if (fd >= 0)
        close(fd);
      return nullptr;
    }
    GstBuffer *buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer, gst_dmabuf_allocator_alloc(dmabuf_, fd, info_.size));
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info_),
                                   kWidth, kHeight, GST_VIDEO_INFO_N_PLANES(&info_),
                                   const_cast<gsize *>(info_.offset),
                                   const_cast<gint *>(info_.stride));
    return buffer;
  }

 private:
  GstVideoInfo info_;
  GstAllocator *dmabuf_;
};

// --- One pipeline run ---------------------------------------------------------------

struct Case {
  std::string element;   // efvkbridge, vulkanupload, identity
  std::string out_caps;  // a capsfilter before appsink, or empty
  Source source = Source::Ring;
  int cache_capacity = -1;  // efvkbridge's cache-capacity, -1: its default
};

struct Measured {
  std::string error;
  std::vector<std::string> warnings;
  uint64_t frames = 0;
  uint64_t wall_ns = 0, process_ns = 0;   // over the window
  uint64_t chain_ns = 0;                  // streaming thread, sink pad -> src pad
  uint64_t release_ns = 0;                // the application: pull, arm the gate, drop the sample
  uint64_t unarmed = 0;                   // efvkbridge frames whose gate could not be armed
  std::map<std::string, uint64_t> stats;  // the element's counters over the window
  std::string import_path;
};

// Chain CPU time: thread CPU from the element's sink pad to its src pad. The
// element's counters are read as the first measured frame reaches it.
struct ChainProbe {
  GstElement *element = nullptr;
  uint64_t entered_at = 0;
  uint64_t in = 0, out = 0;
  uint64_t measured_ns = 0;
  std::map<std::string, uint64_t> stats_start;

  static GstPadProbeReturn on_sink(GstPad *, GstPadProbeInfo *, gpointer self) {
    auto *p = static_cast<ChainProbe *>(self);
    if (p->in++ == kWarmup)
      p->stats_start = element_stats(p->element);
    p->entered_at = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    return GST_PAD_PROBE_OK;
  }
  static GstPadProbeReturn on_src(GstPad *, GstPadProbeInfo *, gpointer self) {
    const uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    auto *p = static_cast<ChainProbe *>(self);
    if (p->out++ >= kWarmup)
      p->measured_ns += now - p->entered_at;
    return GST_PAD_PROBE_OK;
  }
};

GstElement *make(const char *factory, std::string &error) {
  GstElement *e = gst_element_factory_make(factory, nullptr);
  if (!e && error.empty())
    error = std::string("no element \"") + factory + "\"";
  return e;
}

void collect_messages(GstBus *bus, Measured &m) {
  while (GstMessage *msg =
             gst_bus_pop_filtered(bus, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR && m.error.empty())
      m.error = message_text(msg);
    else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING)
      m.warnings.push_back(message_text(msg));
    gst_message_unref(msg);
  }
}

Measured run_case(const Case &c, GstVideoFormat format) {
  Measured m;
  const GstVideoInfo info = frame_info(format);
  const GstVideoInfo ring_info = paged(info);
  std::unique_ptr<MemfdRing> ring;
  std::unique_ptr<FreshFrames> fresh;
  if (c.source == Source::Ring) {
    ring = std::make_unique<MemfdRing>(ring_info, kSlots);
    if (!ring->error().empty()) {
      m.error = ring->error();
      return m;
    }
  } else {
    fresh = std::make_unique<FreshFrames>(ring_info);
  }

  GstElement *pipeline = gst_pipeline_new(nullptr);
  GstElement *src = make("appsrc", m.error);
  GstElement *element = make(c.element.c_str(), m.error);
  GstElement *filter = c.out_caps.empty() ? nullptr : make("capsfilter", m.error);
  GstElement *sink = make("appsink", m.error);
  for (GstElement *e : {src, element, filter, sink})
    if (e)
      gst_bin_add(GST_BIN(pipeline), e);
  if (!m.error.empty()) {
    gst_object_unref(pipeline);
    return m;
  }
  // Plain caps: vulkanupload takes no memory:DMABuf; efvkbridge imports any
  // fd-backed memory whatever the caps say.
  GstCaps *caps = gst_video_info_to_caps(&info);
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, "max-bytes", guint64(0), nullptr);
  gst_caps_unref(caps);
  if (filter) {
    GstCaps *out = gst_caps_from_string(c.out_caps.c_str());
    g_object_set(filter, "caps", out, nullptr);
    gst_caps_unref(out);
  }
  if (c.cache_capacity >= 0)
    g_object_set(element, "cache-capacity", guint(c.cache_capacity), nullptr);
  g_object_set(sink, "sync", FALSE, "enable-last-sample", FALSE, "max-buffers", 0u, nullptr);
  const bool linked = filter ? gst_element_link_many(src, element, filter, sink, nullptr)
                             : gst_element_link_many(src, element, sink, nullptr);
  if (!linked) {
    gst_object_unref(pipeline);
    m.error = "cannot link appsrc ! " + c.element + " ! appsink";
    return m;
  }

  ChainProbe chain;
  chain.element = element;
  {
    GstPad *sinkpad = gst_element_get_static_pad(element, "sink");
    GstPad *srcpad = gst_element_get_static_pad(element, "src");
    gst_pad_add_probe(sinkpad, GST_PAD_PROBE_TYPE_BUFFER, ChainProbe::on_sink, &chain, nullptr);
    gst_pad_add_probe(srcpad, GST_PAD_PROBE_TYPE_BUFFER, ChainProbe::on_src, &chain, nullptr);
    gst_object_unref(sinkpad);
    gst_object_unref(srcpad);
  }

  const uint64_t total = kWarmup + kFrames;
  std::mutex mutex;
  std::condition_variable room;
  uint64_t consumed = 0;
  bool stop = false;
  std::string consumer_error;

  GstBus *bus = gst_element_get_bus(pipeline);
  if (gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    m.error = "the pipeline does not start";
  // The application: pulls, arms, drops. (appsink answers no sample before
  // it has started.)
  std::thread consumer([&] {
    uint64_t wall_start = 0, cpu_start = 0;
    for (uint64_t k = 0; k < total; ++k) {
      // Timed from before the pull: appsink 1.22 keeps the last pulled
      // buffer in the GstSample it reuses and drops it in the next pull, so
      // the previous frame's release (for a miss, its VkImage and
      // VkDeviceMemory) runs in there. Waiting for the frame costs no CPU.
      const uint64_t before = clock_ns(CLOCK_THREAD_CPUTIME_ID);
      GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), kPullTimeout);
      if (!sample) {
        consumer_error = "no frame " + std::to_string(k) + " within 10 s";
        break;
      }
      GstBuffer *buffer = gst_sample_get_buffer(sample);
      if (GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(buffer))
        if (!gst_ef_vk_image_meta_release(meta))
          ++m.unarmed;
      gst_sample_unref(sample);
      if (k >= kWarmup)
        m.release_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - before;
      if (k + 1 == kWarmup) {  // the window: from here to the last frame's drop
        wall_start = clock_ns(CLOCK_MONOTONIC);
        cpu_start = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
      }
      if (k + 1 == total) {  // every frame has been through the element

        m.wall_ns = clock_ns(CLOCK_MONOTONIC) - wall_start;
        m.process_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
        for (const auto &[name, value] : element_stats(element))
          m.stats[name] = value - chain.stats_start[name];
        m.import_path = string_property(element, "import-path");
        m.frames = kFrames;
      }
      {
        std::lock_guard lock(mutex);
        consumed = k + 1;
      }
      room.notify_all();
    }
    std::lock_guard lock(mutex);
    stop = true;
    room.notify_all();
  });

  for (uint64_t n = 0; n < total && m.error.empty(); ++n) {
    {
      std::unique_lock lock(mutex);
      room.wait(lock, [&] { return stop || consumed + kInFlight > n; });
      if (stop)
        break;
    }
    GstBuffer *frame = ring ? ring->frame(n, Wrap::Stable) : fresh->frame();
    if (!frame) {
      m.error = "cannot make a fresh memfd frame";
      break;
    }
    if (gst_app_src_push_buffer(GST_APP_SRC(src), frame) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  if (!m.error.empty()) {
    // The consumer may wait for frames that never come: stop the pipeline.
    gst_element_set_state(pipeline, GST_STATE_NULL);
  }
  consumer.join();
  collect_messages(bus, m);
  if (m.error.empty() && !consumer_error.empty())
    m.error = consumer_error;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  m.chain_ns = chain.measured_ns;
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return m;
}

void BM_Bridge(benchmark::State &state, Case c, GstVideoFormat format) {
  for (auto _ : state) {
    Measured m = run_case(c, format);
    if (!m.error.empty())
      return state.SkipWithError(m.error.c_str());
    if (m.frames != kFrames)
      return state.SkipWithError("frames were lost in the measured window");
    const double frames = double(m.frames);
    state.SetIterationTime(double(m.chain_ns + m.release_ns) / frames / 1e9);
    auto &k = state.counters;
    k["chain_us"] = double(m.chain_ns) / frames / 1e3;
    k["release_us"] = double(m.release_ns) / frames / 1e3;
    k["process_us"] = double(m.process_ns) / frames / 1e3;
    k["wall_us"] = double(m.wall_ns) / frames / 1e3;
    k["unarmed_per_frame"] = double(m.unarmed) / frames;
    k["warnings"] = double(m.warnings.size());
    for (const char *name : {"imports", "hits", "misses", "copies", "declines", "bytes-copied",
                             "gate-timeouts", "evictions"}) {
      auto it = m.stats.find(name);
      if (it != m.stats.end()) {
        std::string key = std::string(name) + "_per_frame";
        std::replace(key.begin(), key.end(), '-', '_');
        k[key] = double(it->second) / frames;
      }
    }
    std::string label;
    if (!m.import_path.empty())
      label = "import-path " + m.import_path;
    if (!m.warnings.empty())
      label += (label.empty() ? "" : "; ") + m.warnings.front();
    state.SetLabel(label);
  }
}

// --- Gate arm -> producer wake --------------------------------------------------------

// bench_core's BM_GateArmToWake, pinned apart from the whole set: main()
// has pinned the process to one CPU by now.
void BM_GateRing(benchmark::State &state) {
  gate_arm_to_wake_ring(state, g_allowed);
}

// Through efvkbridge: appsrc ! efvkbridge ! fakesink, the producer taking its
// frames from a 2-buffer memfd pool. Both buffers are out (one held by the
// element for the frame the application has, one on its way), so the
// producer blocks in gst_buffer_pool_acquire_buffer() until the application
// arms frame k's gate and drops it and the element's release thread lets the
// input go back to the pool. Timed from just before the arm to just after
// the producer's acquire returns.
//
// The application is fakesink's handoff (on the streaming thread), not an
// appsink puller: GStreamer 1.22's appsink keeps the last pulled buffer in
// the GstSample it reuses until the next pull, so a buffer pulled, armed and
// dropped still goes back to its pool only when the next frame is pulled.
struct GateElementRun {
  using Clock = std::chrono::steady_clock;
  explicit GateElementRun(uint64_t total) : armed_at(total + 4), got_at(total + 4) {}
  std::optional<int> app_cpu;
  std::atomic<uint64_t> handed{0};   // frames the application has had
  std::atomic<uint64_t> waiting{0};  // the acquire the producer is about to block in
  std::atomic<uint64_t> got{0};      // acquires that returned
  std::atomic<bool> failed{false};
  std::atomic<bool> stopping{false};
  std::atomic<pid_t> producer_tid{0};
  std::vector<std::atomic<Clock::rep>> armed_at, got_at;

  // Frame k (0-based) went out in acquire k + 1; with 2 buffers, acquire
  // k + 3 needs frame k's back.
  static void on_handoff(GstElement *, GstBuffer *buffer, GstPad *, gpointer self) {
    auto *r = static_cast<GateElementRun *>(self);
    const uint64_t k = r->handed.load(std::memory_order_relaxed);
    if (k == 0 && r->app_cpu)
      pin_thread(pthread_self(), *r->app_cpu);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(buffer);
    if (!meta) {
      r->failed.store(true);
      return;
    }
    if (k >= kWarmup && k + 3 < r->got_at.size() && !r->stopping.load()) {
      // Arming before the producer sleeps would time the path that never blocks.
      spin_until([&] {
        return r->waiting.load(std::memory_order_acquire) >= k + 3 || r->stopping.load();
      });
      const pid_t tid = r->producer_tid.load(std::memory_order_acquire);
      spin_until([&] {
        const char st = thread_state(tid);
        return st == 'S' || st == '?' || r->stopping.load();
      });
    }
    if (k < r->armed_at.size())
      r->armed_at[k].store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
    gst_ef_vk_image_meta_release(meta);
    r->handed.store(k + 1, std::memory_order_release);
  }
};

void BM_GateElement(benchmark::State &state, GstVideoFormat format) {
  using Clock = std::chrono::steady_clock;
  const GstVideoInfo info = frame_info(format);
  std::string error;
  GstElement *pipeline = gst_pipeline_new(nullptr);
  GstElement *src = make("appsrc", error);
  GstElement *bridge = make("efvkbridge", error);
  GstElement *sink = make("fakesink", error);
  for (GstElement *e : {src, bridge, sink})
    if (e)
      gst_bin_add(GST_BIN(pipeline), e);
  if (!error.empty() || !gst_element_link_many(src, bridge, sink, nullptr)) {
    gst_object_unref(pipeline);
    return state.SkipWithError(error.empty() ? "cannot link" : error.c_str());
  }
  GstCaps *caps = gst_video_info_to_caps(&info);
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, "max-bytes", guint64(0), nullptr);
  g_object_set(sink, "sync", FALSE, "enable-last-sample", FALSE, "signal-handoffs", TRUE, nullptr);

  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  GstAllocator *allocator = gst_ef_fd_allocator_new();
  gst_buffer_pool_config_set_params(config, caps, guint(paged(info).size), 2, 2);
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  const bool pool_ok =
      gst_buffer_pool_set_config(pool, config) && gst_buffer_pool_set_active(pool, TRUE);
  gst_caps_unref(caps);
  const std::string pool_source =
      gst_ef_fd_allocator_get_source(reinterpret_cast<GstEfFdAllocator *>(allocator));
  gst_object_unref(allocator);
  if (!pool_ok) {
    gst_object_unref(pool);
    gst_object_unref(pipeline);
    return state.SkipWithError("cannot activate the memfd pool");
  }

  const uint64_t wakes = static_cast<uint64_t>(state.max_iterations);
  GateElementRun run(kWarmup + wakes);
  const auto cpus = two_cpus(g_allowed);
  if (cpus)
    run.app_cpu = cpus->second;
  g_signal_connect(sink, "handoff", G_CALLBACK(GateElementRun::on_handoff), &run);

  AffinityScope scope;
  scope.widen(g_allowed);  // the element's threads, made at PLAYING, may go anywhere
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::thread producer([&] {
    run.producer_tid.store(gettid(), std::memory_order_release);
    for (uint64_t i = 1; !run.stopping.load(); ++i) {
      run.waiting.store(i, std::memory_order_release);
      GstBuffer *buffer = nullptr;
      if (gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr) != GST_FLOW_OK)
        break;  // flushing: the end
      if (i < run.got_at.size())
        run.got_at[i].store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
      run.got.store(i, std::memory_order_release);
      if (gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK)
        break;
    }
  });
  if (cpus && pin_thread(producer.native_handle(), cpus->first))
    state.SetLabel("producer on CPU " + std::to_string(cpus->first) + ", application on CPU " +
                   std::to_string(cpus->second) + "; pool: " + pool_source);

  std::vector<double> us;
  us.reserve(wakes);
  uint64_t k = kWarmup;
  for (auto _ : state) {
    const bool back = spin_until(
        [&] { return run.got.load(std::memory_order_acquire) >= k + 3 || run.failed.load(); });
    if (!back || run.failed.load()) {
      state.SkipWithError("a frame did not come back through efvkbridge");
      break;
    }
    const std::chrono::duration<double> latency =
        Clock::time_point(Clock::duration(run.got_at[k + 3].load(std::memory_order_relaxed))) -
        Clock::time_point(Clock::duration(run.armed_at[k].load(std::memory_order_relaxed)));
    state.SetIterationTime(latency.count());
    us.push_back(latency.count() * 1e6);
    ++k;
  }
  run.stopping.store(true);
  state.counters["gate_timeouts"] = double(element_stats(bridge)["gate-timeouts"]);
  state.counters["misses"] = double(element_stats(bridge)["misses"]);
  gst_buffer_pool_set_flushing(pool, TRUE);  // unblocks the producer
  producer.join();
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
  gst_object_unref(pipeline);
  if (!us.empty()) {
    state.counters["p50_us"] = percentile(us, 0.50);
    state.counters["p99_us"] = percentile(us, 0.99);
  }
}

// --- The raw limit: a Vulkan import by hand --------------------------------------------

struct Vulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  bool dma_buf = false, host = false;
  VkDeviceSize host_alignment = 4096;
  std::string name, driver, error;
  PFN_vkGetMemoryFdPropertiesKHR get_fd_properties = nullptr;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_properties = nullptr;

  static Vulkan &get() {
    static Vulkan vk = make();
    return vk;
  }

 private:
  static bool has(const std::vector<VkExtensionProperties> &all, const char *name) {
    return std::any_of(all.begin(), all.end(), [&](const VkExtensionProperties &e) {
      return !std::strcmp(e.extensionName, name);
    });
  }
  static Vulkan make() {
    Vulkan v;
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (vkCreateInstance(&ici, nullptr, &v.instance) != VK_SUCCESS) {
      v.error = "vkCreateInstance failed";
      return v;
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(v.instance, &n, nullptr);
    std::vector<VkPhysicalDevice> devices(n);
    vkEnumeratePhysicalDevices(v.instance, &n, devices.data());
    for (VkPhysicalDevice pd : devices) {
      uint32_t e = 0;
      vkEnumerateDeviceExtensionProperties(pd, nullptr, &e, nullptr);
      std::vector<VkExtensionProperties> exts(e);
      vkEnumerateDeviceExtensionProperties(pd, nullptr, &e, exts.data());
      const bool dma = has(exts, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME) &&
                       has(exts, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
      const bool host = has(exts, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
      if (!dma && !host)
        continue;
      v.physical = pd;
      v.dma_buf = dma;
      v.host = host;
      std::vector<const char *> enable;
      if (dma) {
        enable.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        enable.push_back(VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
      }
      if (host)
        enable.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
      VkPhysicalDeviceDriverProperties driver{};
      driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
      VkPhysicalDeviceExternalMemoryHostPropertiesEXT hostp{};
      hostp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
      driver.pNext = host ? &hostp : nullptr;
      VkPhysicalDeviceProperties2 props{};
      props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
      props.pNext = &driver;
      vkGetPhysicalDeviceProperties2(pd, &props);
      v.name = props.properties.deviceName;
      v.driver = std::string(driver.driverName) + " " + driver.driverInfo;
      if (host)
        v.host_alignment = hostp.minImportedHostPointerAlignment;
      float priority = 1.0f;
      VkDeviceQueueCreateInfo q{};
      q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
      q.queueFamilyIndex = 0;
      q.queueCount = 1;
      q.pQueuePriorities = &priority;
      VkDeviceCreateInfo dci{};
      dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
      dci.queueCreateInfoCount = 1;
      dci.pQueueCreateInfos = &q;
      dci.enabledExtensionCount = uint32_t(enable.size());
      dci.ppEnabledExtensionNames = enable.data();
      if (vkCreateDevice(pd, &dci, nullptr, &v.device) != VK_SUCCESS) {
        v.error = "vkCreateDevice failed";
        return v;
      }
      if (dma)
        v.get_fd_properties = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
            vkGetDeviceProcAddr(v.device, "vkGetMemoryFdPropertiesKHR"));
      if (host)
        v.get_host_properties = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            vkGetDeviceProcAddr(v.device, "vkGetMemoryHostPointerPropertiesEXT"));
      return v;
    }
    v.error = "no Vulkan device imports dma-bufs or host pointers";
    return v;
  }
};

enum class RawPath { DmaBuf, HostPointer };

// As efvkbridge's miss makes them: one LINEAR image per plane, width stride /
// texel size (RGBA: one RGBA8 image; NV12: R8 for Y, R8G8 for UV), bound to
// one import at the plane offsets. No layout transition (the element's miss
// adds one submit and wait for it).
struct PlaneSpec {
  VkFormat format;
  uint32_t texel;
  uint32_t height;
};

std::vector<PlaneSpec> plane_specs(GstVideoFormat format) {
  if (format == GST_VIDEO_FORMAT_NV12)
    return {{VK_FORMAT_R8_UNORM, 1, kHeight}, {VK_FORMAT_R8G8_UNORM, 2, kHeight / 2}};
  return {{VK_FORMAT_R8G8B8A8_UNORM, 4, kHeight}};
}

void BM_RawImport(benchmark::State &state, GstVideoFormat format, RawPath path) {
  Vulkan &vk = Vulkan::get();
  if (!vk.error.empty())
    return state.SkipWithError(vk.error.c_str());
  if ((path == RawPath::DmaBuf && !vk.dma_buf) || (path == RawPath::HostPointer && !vk.host))
    return state.SkipWithError("the device lacks this import path");
  const GstVideoInfo info = paged(frame_info(format));
  int fd = memfd_create("ef-bench-raw", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, off_t(info.size)) != 0)
    return state.SkipWithError("cannot make a memfd");
  // Touch every page once, as the ring's painted frames are.
  if (void *p = mmap(nullptr, info.size, PROT_WRITE, MAP_SHARED, fd, 0); p != MAP_FAILED) {
    std::memset(p, 0x40, info.size);
    munmap(p, info.size);
  }
  const auto specs = plane_specs(format);
  const auto handle = path == RawPath::DmaBuf
                          ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                          : VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  std::string error;
  for (auto _ : state) {
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = info.size;
    VkImportMemoryFdInfoKHR fd_import{};
    fd_import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
    VkImportMemoryHostPointerInfoEXT host_import{};
    host_import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
    void *map = nullptr;
    uint32_t bits = 0;
    int dup_fd = -1;
    if (path == RawPath::DmaBuf) {
      VkMemoryFdPropertiesKHR props{};
      props.sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR;
      vk.get_fd_properties(vk.device, handle, fd, &props);
      bits = props.memoryTypeBits;
      dup_fd = dup(fd);
      fd_import.handleType = handle;
      fd_import.fd = dup_fd;
      alloc.pNext = &fd_import;
    } else {
      map = mmap(nullptr, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      VkMemoryHostPointerPropertiesEXT props{};
      props.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
      vk.get_host_properties(vk.device, handle, map, &props);
      bits = props.memoryTypeBits;
      host_import.handleType = handle;
      host_import.pHostPointer = map;
      alloc.pNext = &host_import;
    }
    if (!bits) {
      error = "no memory type for the import";
      break;
    }
    alloc.memoryTypeIndex = uint32_t(__builtin_ctz(bits));
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (VkResult r = vkAllocateMemory(vk.device, &alloc, nullptr, &memory); r != VK_SUCCESS) {
      if (dup_fd >= 0)
        close(dup_fd);
      error = "vkAllocateMemory import: " + std::to_string(int(r));
      break;
    }
    std::vector<::VkImage> images;
    for (size_t p = 0; p < specs.size() && error.empty(); ++p) {
      VkExternalMemoryImageCreateInfo external{};
      external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
      external.handleTypes = handle;
      VkImageCreateInfo ici{};
      ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
      ici.pNext = &external;
      ici.imageType = VK_IMAGE_TYPE_2D;
      ici.format = specs[p].format;
      ici.extent = {uint32_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, p)) / specs[p].texel,
                    specs[p].height, 1};
      ici.mipLevels = 1;
      ici.arrayLayers = 1;
      ici.samples = VK_SAMPLE_COUNT_1_BIT;
      ici.tiling = VK_IMAGE_TILING_LINEAR;
      ici.usage =
          VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
      ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
      ::VkImage image = VK_NULL_HANDLE;
      if (VkResult r = vkCreateImage(vk.device, &ici, nullptr, &image); r != VK_SUCCESS) {
        error = "vkCreateImage: " + std::to_string(int(r));
        break;
      }
      images.push_back(image);
      VkMemoryRequirements req{};
      vkGetImageMemoryRequirements(vk.device, image, &req);
      if (!(req.memoryTypeBits & (1u << alloc.memoryTypeIndex))) {
        error = "the imported memory's type does not suit a LINEAR image";
        break;
      }
      if (VkResult r = vkBindImageMemory(vk.device, image, memory, info.offset[p]); r != VK_SUCCESS)
        error = "vkBindImageMemory: " + std::to_string(int(r));
    }
    for (::VkImage image : images)
      vkDestroyImage(vk.device, image, nullptr);
    vkFreeMemory(vk.device, memory, nullptr);
    if (map)
      munmap(map, info.size);
    if (!error.empty())
      break;
  }
  close(fd);
  if (!error.empty())
    return state.SkipWithError(error.c_str());
  state.SetLabel(vk.name);
}

// What a hit costs the element before any Vulkan: the cache lookup, its key
// validated against the memfd (one fstat), in a cache holding the ring.
class MemfdSource : public ef::ImportSource {
 public:
  explicit MemfdSource(int fd) : fd_(fd) {}
  ef::Result<ef::BufferIdentity> derive_identity(uint32_t) const override {
    return ef::rederive_fd_identity(fd_, ef::IdentityKind::DmaBuf);
  }
  ef::Retainer retain() const override {
    auto retained = ef::Retainer::dup_fd(fd_);
    return retained ? *retained : ef::Retainer{};
  }

 private:
  int fd_;
};

void BM_CacheLookup(benchmark::State &state) {
  struct Import {
    int serial;
  };
  ef::ImportCache<Import> cache(16);
  std::vector<int> fds;
  std::vector<ef::ImportKey> keys;
  std::vector<MemfdSource> sources;
  for (guint i = 0; i < kSlots; ++i) {
    int fd = memfd_create("ef-bench-cache", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, 4096) != 0)
      return state.SkipWithError("cannot make a memfd");
    auto identity = ef::identity_from_fd(fd);
    if (!identity)
      return state.SkipWithError(identity.error().message.c_str());
    fds.push_back(fd);
    ef::ImportKey key;
    key.planes[0] = *identity;
    key.layout.width = kWidth;
    key.layout.height = kHeight;
    key.layout.n_planes = 1;
    key.layout.strides[0] = kWidth * 4;
    keys.push_back(key);
  }
  for (int fd : fds)
    sources.emplace_back(fd);
  const ef::ImportCache<Import>::Importer import = []() -> ef::Result<Import> { return Import{1}; };
  for (guint i = 0; i < kSlots; ++i)
    (void)cache.acquire(keys[i], sources[i], import);
  size_t next = 0;
  for (auto _ : state) {
    auto got = cache.acquire(keys[next], sources[next], import);
    benchmark::DoNotOptimize(got);
    next = (next + 1) % kSlots;
  }
  if (cache.stats().misses != kSlots)
    state.SkipWithError("a lookup missed");
  for (int fd : fds)
    close(fd);
}

const char *format_name(GstVideoFormat format) {
  return gst_video_format_to_string(format);
}

}  // namespace

int main(int argc, char **argv) {
  g_allowed = process_cpus();
  const bool pin = !take_unpinned(argc, argv);
  // lavapipe unless the environment names a driver: the machine this
  // program is meant for has no other, and a lent GPU machine says its own.
  g_setenv("VK_DRIVER_FILES", "/usr/share/vulkan/icd.d/lvp_icd.json", FALSE);
  const std::string placement =
      pin ? pin_to_one_cpu(g_allowed, "pipeline cases: all threads") : "unpinned";
  init_gstreamer(&argc, &argv);
  benchmark::AddCustomContext("placement", placement);
  benchmark::AddCustomContext("vk_driver_files", g_getenv("VK_DRIVER_FILES"));
  benchmark::AddCustomContext("gstreamer", gst_version_string());
  {
    Vulkan &vk = Vulkan::get();
    benchmark::AddCustomContext("vulkan_device", vk.error.empty() ? vk.name : vk.error);
    benchmark::AddCustomContext("vulkan_driver", vk.driver);
  }

  for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12}) {
    const std::string f = format_name(format);
    const std::vector<std::pair<std::string, Case>> cases = {
        {"hit", {"efvkbridge", "", Source::Ring, -1}},
        {"miss", {"efvkbridge", "", Source::Ring, 0}},
        {"fresh", {"efvkbridge", "", Source::Fresh, -1}},
        {"vulkanupload", {"vulkanupload", "video/x-raw(memory:VulkanImage)", Source::Ring, -1}},
        {"identity", {"identity", "", Source::Ring, -1}},
    };
    for (const auto &[name, c] : cases)
      benchmark::RegisterBenchmark(("BM_Bridge/" + f + "/" + name).c_str(), BM_Bridge, c, format)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_GateArmToWake/ring", BM_GateRing)
      ->Iterations(kGateRingWakes)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_GateArmToWake/element", BM_GateElement, GST_VIDEO_FORMAT_RGBA)
      ->Iterations(kLatencyWakes)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_NV12})
    for (RawPath path : {RawPath::DmaBuf, RawPath::HostPointer})
      benchmark::RegisterBenchmark((std::string("BM_RawImport/") + format_name(format) + "/" +
                                    (path == RawPath::DmaBuf ? "dma-buf" : "host-pointer"))
                                       .c_str(),
                                   BM_RawImport, format, path)
          ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_CacheLookup/memfd", BM_CacheLookup);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
