// SPDX-License-Identifier: LGPL-2.1-or-later
#include "upload_run.hpp"

#include <gst/app/gstappsrc.h>
#include <gst/gl/egl/gstglmemoryegl.h>
#include <gst/gl/gl.h>
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string_view>
#include <utility>

namespace ef::examples {

namespace {

using namespace std::chrono_literals;

// Frames the producer may have handed over that the element has not taken
// yet: a real producer cannot run further ahead than its ring allows.
constexpr uint64_t kInFlight = 2;
constexpr auto kStallTimeout = 20s;
constexpr GstClockTime kEosTimeout = 60 * GST_SECOND;

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

// glupload exposes no counter and no property naming its upload method; it
// logs the method for every frame at LOG level ("uploader Dmabuf returned 1").
// That line is captured for frame 0 only: logging costs CPU time on the
// streaming thread, which would be charged to glupload in the measured frames.
// Lines raised to LOG only for this are not printed.
struct MethodCapture {
  GstDebugCategory *category = nullptr;
  GstDebugLevel user_level = GST_LEVEL_NONE;  // what GST_DEBUG asked for
  std::mutex mutex;
  std::string *target = nullptr;  // the running capture's destination

  void start(std::string *into) {
    if (!category)
      return;
    std::lock_guard lock(mutex);
    target = into;
    gst_debug_category_set_threshold(category, std::max(user_level, GST_LEVEL_LOG));
  }
  void stop() {
    if (!category)
      return;
    std::lock_guard lock(mutex);
    if (!target)
      return;
    target = nullptr;
    gst_debug_category_set_threshold(category, user_level);
  }
  void take(std::string_view line) {
    constexpr std::string_view kPrefix = "uploader ", kDone = " returned 1,";
    const size_t done = line.find(kDone);
    if (!line.starts_with(kPrefix) || done == std::string_view::npos)
      return;
    std::lock_guard lock(mutex);
    if (target)
      target->assign(line.substr(kPrefix.size(), done - kPrefix.size()));
  }
};

MethodCapture method_capture;

void forward_log(GstDebugCategory *category, GstDebugLevel level, const gchar *file,
                 const gchar *function, gint line, GObject *object, GstDebugMessage *message,
                 gpointer) {
  if (category == method_capture.category && level > method_capture.user_level) {
    if (const gchar *text = gst_debug_message_get(message))
      method_capture.take(text);
    return;
  }
  gst_debug_log_default(category, level, file, function, line, object, message, nullptr);
}

GstDebugCategory *find_category(const char *name) {
  GstDebugCategory *found = nullptr;
  GSList *all = gst_debug_get_all_categories();
  for (GSList *c = all; c && !found; c = c->next)
    if (!std::strcmp(gst_debug_category_get_name(static_cast<GstDebugCategory *>(c->data)), name))
      found = static_cast<GstDebugCategory *>(c->data);
  g_slist_free(all);
  return found;
}

std::map<std::string, uint64_t> uint64_fields(const GstStructure *s) {
  std::map<std::string, uint64_t> fields;
  for (gint i = 0; s && i < gst_structure_n_fields(s); ++i) {
    const gchar *name = gst_structure_nth_field_name(s, guint(i));
    guint64 value;
    if (gst_structure_get_uint64(s, name, &value))
      fields[name] = value;
  }
  return fields;
}

// What one output frame shows.
enum class Shown { Imported, Reused, Copied, Other };

// Everything the pad probes touch. The probes run on the streaming thread;
// the producer reads `entered_` under `mutex_`, and the rest after EOS.
//
// An element costs CPU time in three places, all measured:
// - its chain, from the buffer on its sink pad to the buffer on its src pad;
// - the release of its output frame, which for efupload also releases the
//   input frame it kept: a probe holds a reference to each output frame and
//   drops it, the last one once fakesink is done, as the next frame (or EOS)
//   reaches the element;
// - its GL thread, where GstGL runs every GL call of the pipeline.
class Probes {
 public:
  Probes(const RunConfig &config, GstElement *element, gsize frame_size, RunResult &result)
      : config_(config), element_(element), frame_size_(frame_size), result_(result) {
    static std::atomic<uintptr_t> runs{0};
    run_mark_ = ++runs;
  }
  ~Probes() {
    if (held_)
      gst_buffer_unref(held_);
  }

  void attach() {
    GstPad *sink = gst_element_get_static_pad(element_, "sink");
    GstPad *src = gst_element_get_static_pad(element_, "src");
    gst_pad_add_probe(
        sink, GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
        on_sink, this, nullptr);
    gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, on_src, this, nullptr);
    gst_object_unref(sink);
    gst_object_unref(src);
  }

  // Blocks the producer until frame `n` may be handed over; false when the
  // pipeline failed or stalled.
  bool wait_for_room(uint64_t n) {
    std::unique_lock lock(mutex_);
    return room_.wait_for(lock, kStallTimeout, [&] {
      return failed_ || entered_ + kInFlight > n;
    }) && !failed_;
  }

  void fail() {
    {
      std::lock_guard lock(mutex_);
      failed_ = true;
    }
    room_.notify_all();
  }

 private:
  static GstPadProbeReturn on_sink(GstPad *, GstPadProbeInfo *info, gpointer self) {
    static_cast<Probes *>(self)->entering(info);
    return GST_PAD_PROBE_OK;
  }
  static GstPadProbeReturn on_src(GstPad *, GstPadProbeInfo *info, gpointer self) {
    // Read first: what follows is the measurement's cost, not the element's.
    const uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    auto *probes = static_cast<Probes *>(self);
    const uint64_t allocations = probes->thread_allocations();
    probes->leaving(GST_PAD_PROBE_INFO_BUFFER(info), now, allocations);
    return GST_PAD_PROBE_OK;
  }
  static void find_gl_clock(GstGLContext *, gpointer self) {
    auto *probes = static_cast<Probes *>(self);
    probes->have_gl_clock_ = pthread_getcpuclockid(pthread_self(), &probes->gl_clock_) == 0;
  }

  void entering(GstPadProbeInfo *info) {
    // The previous frame has been through fakesink by now: the streaming
    // thread takes one frame at a time.
    release_held();
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM) {
      if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS && measuring_)
        end_window();
      return;
    }
    const uint64_t n = in_++;
    if (n == config_.warmup)
      begin_window();
    {
      std::lock_guard lock(mutex_);
      entered_ = n + 1;
    }
    room_.notify_one();
    entered_allocations_ = thread_allocations();
    entered_at_ = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }

  uint64_t thread_allocations() const {
    return config_.thread_allocations ? config_.thread_allocations() : 0;
  }
  uint64_t process_allocations() const {
    return config_.process_allocations ? config_.process_allocations() : 0;
  }

  void leaving(GstBuffer *buffer, uint64_t now, uint64_t allocations) {
    const uint64_t n = out_++;
    held_measured_ = n >= config_.warmup;
    if (held_measured_) {
      result_.chain_cpu_ns += now - entered_at_;
      result_.chain_allocations += allocations - entered_allocations_;
    }
    uint64_t new_images = 0;
    const Shown shown = classify(buffer, new_images);
    count(result_.total, shown, new_images);
    if (held_measured_)
      count(result_.window, shown, new_images);
    held_ = gst_buffer_ref(buffer);
    if (n == 0)
      method_capture.stop();
  }

  void release_held() {
    if (!held_)
      return;
    GstBuffer *buffer = std::exchange(held_, nullptr);
    if (!held_measured_) {
      gst_buffer_unref(buffer);
      return;
    }
    if (GST_MINI_OBJECT_REFCOUNT_VALUE(buffer) != 1)
      ++result_.unmeasured_releases;
    const uint64_t allocations = thread_allocations();
    const uint64_t before = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    gst_buffer_unref(buffer);
    result_.release_cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - before;
    result_.release_allocations += thread_allocations() - allocations;
  }

  void begin_window() {
    GstGLContext *context = nullptr;
    if (g_object_class_find_property(G_OBJECT_GET_CLASS(element_), "context"))
      g_object_get(element_, "context", &context, nullptr);
    if (context) {
      gst_gl_context_thread_add(context, find_gl_clock, this);
      gst_object_unref(context);
    }
    stats_start_ = element_stats(element_);
    gl_start_ = have_gl_clock_ ? clock_ns(gl_clock_) : 0;
    process_start_ = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    process_allocations_start_ = process_allocations();
    measuring_ = true;
  }

  void end_window() {
    result_.process_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - process_start_;
    result_.process_allocations = process_allocations() - process_allocations_start_;
    result_.gl_cpu_ns = have_gl_clock_ ? clock_ns(gl_clock_) - gl_start_ : 0;
    for (const auto &[name, value] : element_stats(element_))
      result_.stats_window[name] = value - stats_start_[name];
    measuring_ = false;
  }

  // An EGLImage is "new" the first time it shows on an output frame of this
  // run: marked then, with qdata rather than by address, so an image freed
  // and another allocated at its address still counts as a new import.
  Shown classify(GstBuffer *buffer, uint64_t &new_images) {
    static const GQuark seen = g_quark_from_static_string("ef-example-seen-in-run");
    bool egl = false, gl = false;
    for (guint i = 0; i < gst_buffer_n_memory(buffer); ++i) {
      GstMemory *mem = gst_buffer_peek_memory(buffer, i);
      if (gst_is_gl_memory_egl(mem)) {
        egl = true;
        auto *image = GST_MINI_OBJECT_CAST(reinterpret_cast<GstGLMemoryEGL *>(mem)->image);
        if (image &&
            gst_mini_object_get_qdata(image, seen) != reinterpret_cast<gpointer>(run_mark_)) {
          gst_mini_object_set_qdata(image, seen, reinterpret_cast<gpointer>(run_mark_), nullptr);
          ++new_images;
        }
      } else if (gst_is_gl_memory(mem)) {
        gl = true;
      }
    }
    if (new_images)
      return Shown::Imported;
    return egl ? Shown::Reused : gl ? Shown::Copied : Shown::Other;
  }

  void count(OutputCounts &c, Shown shown, uint64_t new_images) const {
    ++c.frames;
    c.egl_images += new_images;
    c.imported += shown == Shown::Imported;
    c.reused += shown == Shown::Reused;
    if (shown == Shown::Copied) {
      ++c.copied;
      c.bytes_copied += frame_size_;
    }
  }

  const RunConfig &config_;
  GstElement *element_;
  const gsize frame_size_;
  RunResult &result_;
  uintptr_t run_mark_;

  // Streaming thread only.
  uint64_t in_ = 0, out_ = 0;
  uint64_t entered_at_ = 0;
  uint64_t entered_allocations_ = 0;
  uint64_t process_allocations_start_ = 0;
  GstBuffer *held_ = nullptr;  // the last output frame
  bool held_measured_ = false;
  bool measuring_ = false;
  bool have_gl_clock_ = false;
  clockid_t gl_clock_{};
  uint64_t gl_start_ = 0, process_start_ = 0;
  std::map<std::string, uint64_t> stats_start_;

  std::mutex mutex_;
  std::condition_variable room_;
  uint64_t entered_ = 0;
  bool failed_ = false;
};

GstElement *make(const char *factory, const char *name, std::string &error) {
  GstElement *element = gst_element_factory_make(factory, name);
  if (!element && error.empty())
    error = std::string("no element \"") + factory +
            "\" (is the ef plugin built, and GST_PLUGIN_PATH_1_0 right?)";
  return element;
}

// Bus messages until EOS or an error, waiting up to `timeout` for each:
// errors and warnings into `result`, the element's statistics into stats_total.
void drain_bus(GstBus *bus, GstElement *element, GstClockTime timeout, RunResult &result) {
  constexpr auto kTypes = GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING |
                                         GST_MESSAGE_ELEMENT);
  while (GstMessage *message = gst_bus_timed_pop_filtered(bus, timeout, kTypes)) {
    const GstMessageType type = GST_MESSAGE_TYPE(message);
    if (type == GST_MESSAGE_ERROR && result.error.empty())
      result.error = message_text(message);
    else if (type == GST_MESSAGE_WARNING)
      result.warnings.push_back(message_text(message));
    else if (type == GST_MESSAGE_ELEMENT && GST_MESSAGE_SRC(message) == GST_OBJECT(element))
      result.stats_total = uint64_fields(gst_message_get_structure(message));
    gst_message_unref(message);
    if (type == GST_MESSAGE_EOS || type == GST_MESSAGE_ERROR)
      return;
  }
  if (result.error.empty())
    result.error = timeout ? "no EOS within 60 s" : "the pipeline stopped taking frames";
}

GstBusSyncReply watch_errors(GstBus *, GstMessage *message, gpointer probes) {
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
    static_cast<Probes *>(probes)->fail();
  return GST_BUS_PASS;
}

}  // namespace

std::map<std::string, uint64_t> element_stats(GstElement *element) {
  if (!element || !g_object_class_find_property(G_OBJECT_GET_CLASS(element), "stats"))
    return {};
  GstStructure *s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  auto fields = uint64_fields(s);
  if (s)
    gst_structure_free(s);
  return fields;
}

std::string message_text(GstMessage *message) {
  GError *error = nullptr;
  gchar *debug = nullptr;
  if (GST_MESSAGE_TYPE(message) == GST_MESSAGE_ERROR)
    gst_message_parse_error(message, &error, &debug);
  else
    gst_message_parse_warning(message, &error, &debug);
  std::string text = std::string(GST_MESSAGE_SRC_NAME(message)) + ": " + error->message;
  if (debug)
    text += std::string(" (") + debug + ")";
  g_error_free(error);
  g_free(debug);
  return text;
}

void init_gstreamer(int *argc, char ***argv) {
  g_setenv("GST_GL_WINDOW", "egl-device", FALSE);  // no display server needed
  g_setenv("GST_PLUGIN_PATH_1_0", EF_PLUGIN_DIR, FALSE);
  // Not the user's registry cache: it would remember this build tree's plugin.
  g_setenv("GST_REGISTRY_1_0", EF_REGISTRY, FALSE);
  gst_init(argc, argv);

  // Registers the "glupload" category, so that GST_DEBUG's level for it is known.
  g_type_class_unref(g_type_class_ref(gst_gl_upload_get_type()));
  method_capture.category = find_category("glupload");
  if (method_capture.category) {
    method_capture.user_level = gst_debug_category_get_threshold(method_capture.category);
    gst_debug_remove_log_function(gst_debug_log_default);
    gst_debug_add_log_function(forward_log, nullptr, nullptr);
  }
}

RunResult run_upload(const RunConfig &config) {
  RunResult result;
  GstVideoInfo info;
  gst_video_info_set_format(&info, config.format, config.width, config.height);
  MemfdRing ring(info, config.slots);
  if (!ring.error().empty()) {
    result.error = ring.error();
    return result;
  }

  const bool upload = config.element != "identity";
  GstElement *pipeline = gst_pipeline_new(nullptr);
  GstElement *src = make("appsrc", nullptr, result.error);
  GstElement *element = make(config.element.c_str(), nullptr, result.error);
  GstElement *filter = make("capsfilter", nullptr, result.error);
  GstElement *sink = make("fakesink", nullptr, result.error);
  for (GstElement *e : {src, element, filter, sink})
    if (e)
      gst_bin_add(GST_BIN(pipeline), e);
  if (!result.error.empty()) {
    gst_object_unref(pipeline);
    return result;
  }

  GstCaps *caps = ring.caps();
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
  if (upload) {
    // Textures are named by the video format, whatever form the dma-buf caps have.
    gst_caps_unref(caps);
    caps = gst_video_info_to_caps(&ring.info());
    gst_caps_set_features(caps, 0,
                          gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
  }
  g_object_set(filter, "caps", caps, nullptr);
  gst_caps_unref(caps);
  // The last sample would keep one frame (and its slot) referenced.
  g_object_set(sink, "sync", FALSE, "enable-last-sample", FALSE, nullptr);
  if (!gst_element_link_many(src, element, filter, sink, nullptr)) {
    gst_object_unref(pipeline);
    result.error = "cannot link appsrc ! " + config.element + " ! capsfilter ! fakesink";
    return result;
  }

  Probes probes(config, element, info.size, result);
  probes.attach();
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_bus_set_sync_handler(bus, watch_errors, &probes, nullptr);
  if (config.element == "glupload")
    method_capture.start(&result.method);

  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  const uint64_t frames = uint64_t(config.warmup) + config.frames;
  bool flowing = true;
  for (uint64_t n = 0; n < frames && flowing; ++n) {
    flowing = probes.wait_for_room(n);
    if (flowing)
      flowing =
          gst_app_src_push_buffer(GST_APP_SRC(src), ring.frame(n, config.wrap)) == GST_FLOW_OK;
  }
  if (flowing)
    gst_app_src_end_of_stream(GST_APP_SRC(src));
  // Stopped early, the pipeline has posted its error already, or never will.
  drain_bus(bus, element, flowing ? kEosTimeout : 0, result);
  method_capture.stop();

  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return result;
}

}  // namespace ef::examples
