// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames into an application's Vulkan: a producer thread fills a ring of
// memfd buffers (a GstBufferPool with ef's fd allocator) and pushes them
// through
//
//   appsrc ! efvkbridge ! appsink
//
// and the main thread, with its own VkDevice shared through the
// ef.vulkan.device context, checksums every frame's VkImages with a compute
// shader and compares with the checksum the CPU computed when it wrote the
// frame. Each frame's gate is armed once the GPU work retired; until then the
// bridge keeps the producer's buffer out of the pool, so the producer cannot
// rewrite it while the GPU reads it.
//
//   vk_consumer [--format RGBA|BGRA|GRAY8|NV12] [--frames N] [--ring N] [--size WxH]
//
// Exit status: 0 when every frame matched, the bridge imported each ring
// buffer once and there was no validation message; 77 (skip) without a
// Vulkan device; 1 otherwise.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "checksum.hpp"
#include "frame_pattern.hpp"
#include "vk_app.hpp"

using namespace ef::examples;

namespace {

constexpr uint64_t kGpuTimeoutNs = 5'000'000'000;

struct Options {
  std::string format = "RGBA";
  guint frames = 60;
  guint ring = 4;
  // 300 RGBA texels are 1200 bytes; rows padded to 256 bytes make 1280, so
  // the bridge's images are 320 texels wide and the frame is a sub-rectangle.
  guint width = 300, height = 240;
};

bool parse_args(int argc, char **argv, Options &o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--format"))
      o.format = argv[i + 1];
    else if (!std::strcmp(argv[i], "--frames"))
      o.frames = guint(std::strtoul(argv[i + 1], nullptr, 10));
    else if (!std::strcmp(argv[i], "--ring"))
      o.ring = guint(std::strtoul(argv[i + 1], nullptr, 10));
    else if (!std::strcmp(argv[i], "--size")) {
      if (std::sscanf(argv[i + 1], "%ux%u", &o.width, &o.height) != 2)
        return false;
    } else
      return false;
  }
  return argc % 2 == 1 && o.frames > o.ring && o.ring > 0 && o.width > 0 && o.height > 0;
}

// The producer's ring: a pool of exactly @ring memfd buffers laid out so
// that the bridge imports every frame without a copy on any driver: rows
// padded to 256 bytes (a pitch LINEAR images take on lavapipe, 64, and on
// NVIDIA), buffers sized to whole pages (host-pointer imports, the NVIDIA
// driver's only way to take a memfd, map whole pages).
GstBufferPool *make_ring(GstCaps *caps, const GstVideoInfo &info, guint ring) {
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  GstVideoAlignment align;
  gst_video_alignment_reset(&align);
  for (guint p = 0; p < GST_VIDEO_MAX_PLANES; ++p)
    align.stride_align[p] = 255;
  GstVideoInfo padded = info;
  gst_video_info_align(&padded, &align);
  const guint page = 4096;
  gst_buffer_pool_config_set_params(config, caps, guint(padded.size + page - 1) / page * page, ring,
                                    ring);
  GstAllocator *allocator = gst_ef_fd_allocator_new();
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_object_unref(allocator);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
  gst_buffer_pool_config_set_video_alignment(config, &align);
  if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
    gst_object_unref(pool);
    return nullptr;
  }
  return pool;
}

// What the producer wrote, by frame number, for the consumer to compare with.
struct Expected {
  std::mutex lock;
  std::map<uint64_t, PlaneSums> sums;
  std::set<GstMemory *> ring_memories;  // distinct buffers the pool handed out
  guint waits = 0;                      // acquires that found the pool empty
};

GstBufferPoolAcquireParams dont_wait() {
  GstBufferPoolAcquireParams params{};
  params.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;
  return params;
}

void produce(GstAppSrc *src, GstBufferPool *pool, const GstVideoInfo &info, const Options &o,
             Expected &expected) {
  for (uint64_t n = 0; n < o.frames; ++n) {
    GstBuffer *buffer = nullptr;
    GstBufferPoolAcquireParams dontwait = dont_wait();
    bool waited = false;
    if (gst_buffer_pool_acquire_buffer(pool, &buffer, &dontwait) != GST_FLOW_OK) {
      // Every buffer is still held: by the bridge until the consumer arms its
      // gate. This wait is the back-pressure.
      waited = true;
      if (gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr) != GST_FLOW_OK)
        break;  // flushing: the consumer gave up
    }
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE)) {
      gst_buffer_unref(buffer);
      break;
    }
    paint_frame(&frame, n);
    const PlaneSums sums = frame_checksums(&frame);
    gst_video_frame_unmap(&frame);
    {
      std::lock_guard l(expected.lock);
      expected.sums[n] = sums;
      expected.ring_memories.insert(gst_buffer_peek_memory(buffer, 0));
      expected.waits += waited;
    }
    GST_BUFFER_OFFSET(buffer) = n;
    GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(n, GST_SECOND, 30);
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(src, buffer) != GST_FLOW_OK)
      break;
  }
  gst_app_src_end_of_stream(src);
}

// Every buffer back in the pool once the pipeline is gone: nothing kept a
// frame of the ring (appsink keeps the last one it handed out until then).
bool drain_ring(GstBufferPool *pool, guint ring, std::vector<GstBuffer *> &back) {
  const gint64 deadline = g_get_monotonic_time() + 10 * G_TIME_SPAN_SECOND;
  GstBufferPoolAcquireParams dontwait = dont_wait();
  while (back.size() < ring && g_get_monotonic_time() < deadline) {
    GstBuffer *buffer = nullptr;
    if (gst_buffer_pool_acquire_buffer(pool, &buffer, &dontwait) == GST_FLOW_OK)
      back.push_back(buffer);
    else
      g_usleep(1000);
  }
  return back.size() == ring;
}

guint64 stat(const GstStructure *stats, const char *name) {
  guint64 v = 0;
  gst_structure_get_uint64(stats, name, &v);
  return v;
}

bool report_bus(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  bool clean = true;
  while (GstMessage *m =
             gst_bus_pop_filtered(bus, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR)
      gst_message_parse_error(m, &error, &debug);
    else
      gst_message_parse_warning(m, &error, &debug);
    std::fprintf(stderr, "%s from %s: %s (%s)\n",
                 GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR ? "error" : "warning",
                 GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), error->message, debug ? debug : "");
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(m);
    clean = false;
  }
  gst_object_unref(bus);
  return clean;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Options o;
  if (!parse_args(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: vk_consumer [--format RGBA|BGRA|GRAY8|NV12] [--frames N] [--ring N] "
                 "[--size WxH]\n");
    return 2;
  }
  std::string why;
  auto app = VkApp::create(&why);
  if (!app) {
    std::printf("SKIP: %s\n", why.c_str());
    return kExitSkip;
  }
  auto checksum = GpuChecksum::create(*app, &why);
  if (!checksum) {
    std::fprintf(stderr, "cannot build the checksum pass: %s\n", why.c_str());
    return 1;
  }
  std::printf("device: %s%s\n", app->name().c_str(), app->validation() ? " (validation on)" : "");

  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! efvkbridge name=bridge release-timeout=5000 ! "
      "appsink name=sink sync=false enable-last-sample=false",
      &error);
  if (!pipeline) {
    std::fprintf(stderr, "cannot make the pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *bridge = gst_bin_get_by_name(GST_BIN(pipeline), "bridge");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");

  gchar *caps_text =
      g_strdup_printf("video/x-raw(memory:DMABuf),format=%s,width=%u,height=%u,framerate=30/1",
                      o.format.c_str(), o.width, o.height);
  GstCaps *caps = gst_caps_from_string(caps_text);
  g_free(caps_text);
  GstVideoInfo info;
  if (!caps || !gst_video_info_from_caps(&info, caps)) {
    std::fprintf(stderr, "unknown format %s\n", o.format.c_str());
    return 2;
  }
  g_object_set(src, "caps", caps, nullptr);
  // The frames this application can use are the ones carrying the images.
  GstCaps *sink_caps = gst_caps_copy(caps);
  gst_caps_set_features(sink_caps, 0,
                        gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_DMABUF,
                                              GST_CAPS_FEATURE_META_EF_VK_IMAGE, nullptr));
  g_object_set(sink, "caps", sink_caps, nullptr);
  gst_caps_unref(sink_caps);
  GstBufferPool *pool = make_ring(caps, info, o.ring);
  gst_caps_unref(caps);
  if (!pool) {
    std::fprintf(stderr, "cannot make the memfd ring\n");
    return 1;
  }

  app->share_with(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  Expected expected;
  std::thread producer(produce, GST_APP_SRC(src), pool, std::cref(info), std::cref(o),
                       std::ref(expected));

  guint frames = 0, mismatches = 0, failures = 0;
  uint64_t value = 0;
  while (GstSample *sample = gst_app_sink_pull_sample(GST_APP_SINK(sink))) {
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(buffer);
    const uint64_t n = GST_BUFFER_OFFSET(buffer);
    bool ok = meta && checksum->submit(*meta, ++value, &why);
    if (!meta)
      why = "the frame carries no GstEfVkImageMeta";
    else if (ok && !(ok = app->wait(checksum->timeline(), value, kGpuTimeoutNs) == VK_SUCCESS))
      why = "the checksum pass did not finish";
    // The GPU is done with the frame (or never started): the producer may
    // have its buffer back. A consumer that does not wait for its own work
    // would hand the semaphore over with
    // gst_ef_vk_image_meta_release_after_timeline() instead (docs/VKBRIDGE.md).
    if (meta)
      gst_ef_vk_image_meta_release(meta);
    if (!ok) {
      std::fprintf(stderr, "frame %" G_GUINT64_FORMAT ": %s\n", n, why.c_str());
      ++failures;
    } else {
      const PlaneSums gpu = checksum->sums();
      PlaneSums cpu{};
      {
        std::lock_guard l(expected.lock);
        cpu = expected.sums[n];
      }
      for (guint p = 0; p < meta->n_planes; ++p)
        if (gpu[p] != cpu[p]) {
          std::fprintf(stderr, "frame %" G_GUINT64_FORMAT " plane %u: GPU sum %08x, CPU %08x\n", n,
                       p, gpu[p], cpu[p]);
          ++mismatches;
        }
    }
    checksum->finish_frame();
    gst_sample_unref(sample);
    ++frames;
    if (failures)
      break;
  }
  if (failures)
    gst_buffer_pool_set_flushing(pool, TRUE);  // unblocks the producer
  producer.join();

  GstStructure *stats = nullptr;
  gchar *path = nullptr;
  g_object_get(bridge, "stats", &stats, "import-path", &path, nullptr);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  const bool bus_clean = report_bus(pipeline);
  gst_object_unref(src);
  gst_object_unref(bridge);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  std::vector<GstBuffer *> back;
  const bool drained = drain_ring(pool, o.ring, back);
  for (GstBuffer *b : back)
    gst_buffer_unref(b);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);

  const guint64 ring_used = expected.ring_memories.size();
  const guint64 hits = stat(stats, "hits"), misses = stat(stats, "misses");
  std::printf("format %s %ux%u, ring %u: %u frames, %u mismatches, producer waited %u times\n",
              o.format.c_str(), o.width, o.height, o.ring, frames, mismatches, expected.waits);
  std::printf("efvkbridge (import path %s): hits %" G_GUINT64_FORMAT ", misses %" G_GUINT64_FORMAT
              ", imports %" G_GUINT64_FORMAT ", declines %" G_GUINT64_FORMAT
              ", gate-timeouts %" G_GUINT64_FORMAT "\n",
              path, hits, misses, stat(stats, "imports"), stat(stats, "declines"),
              stat(stats, "gate-timeouts"));
  std::printf("validation messages: %" G_GUINT64_FORMAT "\n", app->validation_messages());
  g_free(path);

  bool ok = frames == o.frames && mismatches == 0 && failures == 0 && drained && bus_clean;
  // Steady state: each ring buffer imported once, every later frame a hit.
  if (misses != ring_used || hits != frames - ring_used || ring_used != o.ring) {
    std::fprintf(stderr,
                 "expected %u misses (one per ring buffer) and %" G_GUINT64_FORMAT " hits\n",
                 o.ring, frames - ring_used);
    ok = false;
  }
  if (stat(stats, "gate-timeouts") || stat(stats, "declines"))
    ok = false;
  if (!drained)
    std::fprintf(stderr, "the ring did not come back: a frame was leaked\n");
  gst_structure_free(stats);
  checksum.reset();
  const bool validation_clean = app->validation_messages() == 0;
  app.reset();
  std::printf("%s\n", ok && validation_clean ? "PASS" : "FAIL");
  return ok && validation_clean ? 0 : 1;
}
