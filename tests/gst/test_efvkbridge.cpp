// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge on lavapipe, with the Khronos validation layer on the bridge's
// device (EF_VK_VALIDATION=1, set by meson): every test ends with zero
// validation messages. Pixels are checked exactly by a round trip through
// both directions: memfd frames into Vulkan (imported, or copied into staging
// images), the resulting VkImages out of Vulkan again (GPU copy into memfds),
// compared byte for byte with what was written.
// The C++ headers first: gstcheck.h defines a macro named fail().
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <cstdio>
#include <utility>
#include <string>
#include <thread>
#include <vector>

#include <gst/check/gstcheck.h>
#include <malloc.h>
#include <gst/check/gstharness.h>
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "frames.hpp"
#include "gap_frames.hpp"
#include "harness.hpp"
#include "short_fds.hpp"

using namespace ef::test;

namespace {

GstVideoInfo video_info(GstVideoFormat format, guint width, guint height) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  return info;
}

GstHarness *into_bridge(const GstVideoInfo &info, const char *feature = nullptr) {
  GstHarness *h = gst_harness_new("efvkbridge");
  GstCaps *in = caps_for(info, feature);
  GstCaps *out = gst_caps_copy(in);
  GstCapsFeatures *f = gst_caps_features_new(GST_CAPS_FEATURE_META_EF_VK_IMAGE, nullptr);
  if (feature)
    gst_caps_features_add(f, feature);
  gst_caps_set_features(out, 0, f);
  gst_harness_set_caps(h, in, out);
  return h;
}

// An out-of-Vulkan bridge on the same device as `shared_with`.
GstHarness *out_bridge(const GstVideoInfo &info, GstElement *shared_with) {
  GstHarness *h = gst_harness_new("efvkbridge");
  if (shared_with) {
    GstContext *context = gst_element_get_context(shared_with, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
    fail_unless(context != nullptr, "the first bridge announced no device context");
    gst_element_set_context(h->element, context);
    gst_context_unref(context);
  }
  gst_harness_set_caps(h, caps_for(info, GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE), caps_for(info));
  return h;
}

// A buffer of the meta's images, as an application pushes VkImages.
GstBuffer *image_buffer(GstEfVkImageMeta *meta) {
  GstBuffer *buffer = gst_buffer_new();
  for (guint p = 0; p < meta->n_planes; ++p)
    gst_buffer_append_memory(buffer, gst_ef_vk_image_memory_new(meta->planes[p], 4096));
  return buffer;
}

std::string pull_string(GstHarness *h, const GstVideoInfo &info, uint32_t seed) {
  GstBuffer *out = gst_harness_pull(h);
  if (!out)
    return "no output";
  std::string why = check_buffer(out, info, seed);
  gst_buffer_unref(out);
  return why;
}

std::string import_path(GstElement *e) {
  gchar *path = nullptr;
  g_object_get(e, "import-path", &path, nullptr);
  std::string s = path ? path : "";
  g_free(path);
  return s;
}

// Frames of a ring of `ring` memfds through both directions, `rounds` times.
void round_trip(GstVideoFormat format, guint width, guint height, guint ring, guint rounds,
                const char *expected_path) {
  GstVideoInfo info = video_info(format, width, height);
  GstHarness *in = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstHarness *out = nullptr;
  std::vector<int> fds;
  for (guint i = 0; i < ring; ++i)
    fds.push_back(make_memfd("ef-vk-ring", info.size));
  for (guint n = 0; n < ring * rounds; ++n) {
    const uint32_t seed = n + 1;
    write_frame_to_fd(fds[n % ring], info, seed);
    fail_unless_equals_int(gst_harness_push(in, fd_frame(fds[n % ring], info, seed)), GST_FLOW_OK);
    GstBuffer *imported = gst_harness_pull(in);
    fail_unless(imported != nullptr);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(imported);
    fail_unless(meta != nullptr, "no GstEfVkImageMeta on frame %u", n);
    fail_unless_equals_int(meta->n_planes, GST_VIDEO_INFO_N_PLANES(&info));
    // Foreign memory (a dma-buf) must be acquired from FOREIGN; copies not.
    fail_unless_equals_int(
        meta->flags & GST_EF_VK_IMAGE_META_FLAG_FOREIGN,
        std::strcmp(expected_path, "dma-buf") == 0 ? GST_EF_VK_IMAGE_META_FLAG_FOREIGN : 0);
    uint32_t w = 0, h = 0;
    fail_unless_equals_int(ef_vk_image_get_dimensions(meta->image, &w, &h), 0);
    fail_unless_equals_int(w, width);
    fail_unless_equals_int(h, height);
    if (!out)
      out = out_bridge(info, in->element);
    // The out bridge arms the images' gate once its copy retired: that is
    // what releases the input frame to its producer here.
    fail_unless_equals_int(gst_harness_push(out, image_buffer(meta)), GST_FLOW_OK);
    gst_buffer_unref(imported);
    std::string why = pull_string(out, info, seed);
    fail_unless(why.empty(), "%s %ux%u frame %u: %s", gst_video_format_to_string(format), width,
                height, n, why.c_str());
  }
  GstElement *bridge = in->element;
  const std::string path = import_path(bridge);
  fail_unless_equals_string(path.c_str(), expected_path);
  const bool imports = std::strcmp(expected_path, "copy") != 0;
  // Steady state: one import per ring buffer, every later frame a hit.
  fail_unless_equals_uint64(stat(bridge, "imports"), imports ? ring : 0);
  fail_unless_equals_uint64(stat(bridge, "misses"), imports ? ring : 1);
  fail_unless_equals_uint64(stat(bridge, "hits"), imports ? ring * (rounds - 1) : 0);
  fail_unless_equals_uint64(stat(bridge, "copies"), imports ? 0 : ring * rounds);
  fail_unless_equals_uint64(stat(bridge, "gate-timeouts"), 0);
  fail_unless_equals_uint64(stat(out->element, "downloads"), ring * rounds);
  fail_unless_equals_uint64(stat(out->element, "copies"), 0);
  fail_unless_equals_uint64(stat(bridge, "validation-messages"), 0);
  fail_unless_equals_uint64(stat(out->element, "validation-messages"), 0);
  gst_harness_teardown(out);
  gst_harness_teardown(in);
  for (int fd : fds)
    close(fd);
}

}  // namespace

GST_START_TEST(test_round_trip_rgba) {
  round_trip(GST_VIDEO_FORMAT_RGBA, 64, 48, 3, 4, "dma-buf");
  round_trip(GST_VIDEO_FORMAT_BGRA, 64, 48, 3, 2, "dma-buf");
  round_trip(GST_VIDEO_FORMAT_BGRx, 1920, 1080, 2, 2, "dma-buf");
}
GST_END_TEST;

GST_START_TEST(test_round_trip_gray_nv12) {
  round_trip(GST_VIDEO_FORMAT_GRAY8, 128, 32, 3, 3, "dma-buf");
  round_trip(GST_VIDEO_FORMAT_NV12, 128, 64, 3, 3, "dma-buf");
  round_trip(GST_VIDEO_FORMAT_NV12, 1920, 1080, 2, 2, "dma-buf");
}
GST_END_TEST;

// A stride the driver cannot lay a LINEAR image out with (50 x 4 = 200 bytes,
// lavapipe pads to 64): declined, copied into staging images, still exact.
GST_START_TEST(test_unimportable_stride_copies) {
  round_trip(GST_VIDEO_FORMAT_RGBA, 50, 20, 2, 3, "copy");
}
GST_END_TEST;

GST_START_TEST(test_system_memory_copies) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *in = into_bridge(info);
  GstHarness *out = nullptr;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    fail_unless_equals_int(gst_harness_push(in, system_frame(info, seed)), GST_FLOW_OK);
    GstBuffer *b = gst_harness_pull(in);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(b);
    fail_unless(meta != nullptr);
    if (!out)
      out = out_bridge(info, in->element);
    fail_unless_equals_int(gst_harness_push(out, image_buffer(meta)), GST_FLOW_OK);
    gst_buffer_unref(b);
    std::string why = pull_string(out, info, seed);
    fail_unless(why.empty(), "frame %u: %s", seed, why.c_str());
  }
  fail_unless_equals_uint64(stat(in->element, "declines"), 6);
  fail_unless_equals_uint64(stat(in->element, "copies"), 6);
  fail_unless_equals_uint64(stat(in->element, "bytes-copied"), 6 * info.size);
  fail_unless_equals_uint64(stat(in->element, "imports"), 0);
  fail_unless_equals_uint64(stat(in->element, "validation-messages"), 0);
  gst_harness_teardown(out);
  gst_harness_teardown(in);
}
GST_END_TEST;

// A staging slot reused before its gate was armed is named with the frame
// that waited for it: the fifth frame copied (frames count from 0), with its
// own pts.
GST_START_TEST(test_staging_timeout_names_frame) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *in = into_bridge(info);
  GstBus *bus = attach_bus(in);
  g_object_set(in->element, "release-timeout", 20u, nullptr);
  for (uint32_t n = 0; n < 5; ++n) {
    GstBuffer *frame = system_frame(info, n + 1);
    GST_BUFFER_PTS(frame) = n * 40 * GST_MSECOND;
    fail_unless_equals_int(gst_harness_push(in, frame), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(in));  // never armed
  }
  fail_unless_equals_uint64(stat(in->element, "copies"), 5);
  std::vector<std::string> named;  // the debug part's last line: the frame
  while (GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING)) {
    GError *e = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_warning(m, &e, &debug);
    if (std::strstr(e->message, "Staging slot") && debug) {
      const char *line = std::strrchr(debug, '\n');
      named.emplace_back(line ? line + 1 : debug);
    }
    g_error_free(e);
    g_free(debug);
    gst_message_unref(m);
  }
  fail_unless_equals_int(named.size(), 1);
  fail_unless_equals_string(named[0].c_str(), "frame 4 (pts 0:00:00.160000000)");
  release_bus(bus);
  gst_harness_teardown(in);
}
GST_END_TEST;

// Page-aligned system memory (a pool that asked for 4096-byte alignment)
// is imported as a host allocation, once per buffer, and retained by a ref.
GST_START_TEST(test_aligned_system_memory_imports) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 32);  // 8192 bytes
  GstHarness *in = into_bridge(info);
  GstHarness *out = nullptr;
  GstAllocationParams params;
  gst_allocation_params_init(&params);
  params.align = 4095;
  GstBuffer *ring[2];
  for (GstBuffer *&b : ring)
    b = gst_buffer_new_allocate(nullptr, info.size, &params);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    GstBuffer *frame = ring[seed % 2];
    // The bridge gives the frame back from its release thread once the out
    // bridge armed its gate: soon, not at once (a loaded machine delays it).
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!gst_buffer_is_writable(frame) && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    GstVideoFrame vf;
    fail_unless(gst_buffer_is_writable(frame), "the bridge still holds frame %u", seed);
    fail_unless(gst_video_frame_map(&vf, &info, frame, GST_MAP_WRITE));
    fill_frame(&vf, seed);
    gst_video_frame_unmap(&vf);
    fail_unless_equals_int(gst_harness_push(in, gst_buffer_ref(frame)), GST_FLOW_OK);
    GstBuffer *b = gst_harness_pull(in);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(b);
    fail_unless(meta != nullptr);
    if (!out)
      out = out_bridge(info, in->element);
    fail_unless_equals_int(gst_harness_push(out, image_buffer(meta)), GST_FLOW_OK);
    gst_buffer_unref(b);
    std::string why = pull_string(out, info, seed);
    fail_unless(why.empty(), "frame %u: %s", seed, why.c_str());
  }
  const std::string path = import_path(in->element);
  fail_unless_equals_string(path.c_str(), "host-pointer");
  fail_unless_equals_uint64(stat(in->element, "imports"), 2);
  fail_unless_equals_uint64(stat(in->element, "hits"), 4);
  fail_unless_equals_uint64(stat(in->element, "copies"), 0);
  fail_unless_equals_uint64(stat(in->element, "validation-messages"), 0);
  gst_harness_teardown(out);
  gst_harness_teardown(in);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
}
GST_END_TEST;

namespace {

GstBufferPool *memfd_pool(const GstVideoInfo &info, guint buffers) {
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  GstCaps *caps = caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  gst_buffer_pool_config_set_params(config, caps, guint(info.size), buffers, buffers);
  gst_caps_unref(caps);
  GstAllocator *allocator = gst_ef_fd_allocator_new();
  gst_buffer_pool_config_set_allocator(config, allocator, nullptr);
  gst_object_unref(allocator);
  fail_unless(gst_buffer_pool_set_config(pool, config));
  fail_unless(gst_buffer_pool_set_active(pool, TRUE));
  return pool;
}

GstBuffer *acquire_filled(GstBufferPool *pool, const GstVideoInfo &info, uint32_t seed) {
  GstBuffer *buffer = nullptr;
  fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &buffer, nullptr), GST_FLOW_OK);
  GstVideoFrame frame;
  fail_unless(gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE));
  fill_frame(&frame, seed);
  gst_video_frame_unmap(&frame);
  return buffer;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

}  // namespace

// A slow consumer stalls the producer: with both buffers of its pool held
// until their gates are armed, the producer's next acquire blocks (using no
// CPU), and no held frame is ever rewritten.
GST_START_TEST(test_slow_consumer_stalls_producer) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 256, 64);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  g_object_set(h->element, "release-timeout", 10000u, nullptr);
  GstBufferPool *pool = memfd_pool(info, 2);
  GstBuffer *held[2];
  for (uint32_t i = 0; i < 2; ++i) {
    fail_unless_equals_int(gst_harness_push(h, acquire_filled(pool, info, i + 1)), GST_FLOW_OK);
    held[i] = gst_harness_pull(h);
    fail_unless(gst_buffer_get_ef_vk_image_meta(held[i]) != nullptr);
  }
  // The consumer drops its buffers but has not armed: the bridge holds them.
  std::atomic<bool> acquired{false};
  GstBuffer *third = nullptr;
  std::thread producer([&] {
    fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &third, nullptr), GST_FLOW_OK);
    acquired = true;
  });
  GstEfVkImageMeta *first_meta = gst_buffer_get_ef_vk_image_meta(held[0]);
  EfVkImage *first_image = nullptr;
  fail_unless_equals_int(ef_vk_image_copy(first_meta->image, &first_image), 0);
  for (GstBuffer *b : held)
    fail_unless(check_buffer(b, info, b == held[0] ? 1 : 2).empty());
  gst_buffer_unref(held[1]);
  const double cpu_before = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double stalled_cpu = cpu_seconds() - cpu_before;
  fail_if(acquired.load(), "the producer rewrote a slot the consumer still held");
  fail_unless(stalled_cpu < 0.05, "%.3f s of CPU while stalled", stalled_cpu);
  // Content unchanged while held.
  fail_unless(check_buffer(held[0], info, 1).empty());
  gst_buffer_unref(held[0]);
  fail_if(acquired.load(), "dropping the buffer without arming released the slot");
  fail_unless_equals_int(ef_vk_image_release_slot(first_image), 0);  // GPU work retired
  producer.join();
  fail_unless(acquired.load());
  gst_buffer_unref(third);
  ef_vk_image_free(first_image);
  fail_unless_equals_uint64(stat(h->element, "gate-timeouts"), 0);
  gst_harness_teardown(h);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}
GST_END_TEST;

// A consumer that never arms: each frame is released after release-timeout
// with a warning naming it; the producer goes on, nothing freezes.
GST_START_TEST(test_never_armed_times_out) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstBus *bus = attach_bus(h);
  g_object_set(h->element, "release-timeout", 30u, nullptr);
  GstBufferPool *pool = memfd_pool(info, 2);
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 0; i < 6; ++i) {
    fail_unless_equals_int(gst_harness_push(h, acquire_filled(pool, info, i + 1)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  const auto took = std::chrono::steady_clock::now() - start;
  fail_unless(took < std::chrono::seconds(5));
  fail_unless(stat(h->element, "gate-timeouts") >= 4);
  int warnings = 0;
  while (GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING)) {
    GError *e = nullptr;
    gst_message_parse_warning(m, &e, nullptr);
    fail_unless(std::strstr(e->message, "frame ") != nullptr, "%s", e->message);
    ++warnings;
    g_error_free(e);
    gst_message_unref(m);
  }
  fail_unless(warnings >= 4);
  gst_harness_teardown(h);
  release_bus(bus);
  gst_buffer_pool_set_active(pool, FALSE);
  gst_object_unref(pool);
}
GST_END_TEST;

namespace {

struct Counts {
  std::atomic<int> retains{0};
  std::atomic<int> releases{0};
};
void on_retain(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->retains;
}
void on_release(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->releases;
}

// Pushes an application image described as given, expects an error naming
// `expected`, and checks that the image's gate was armed (its slot is not
// lost) and its keep-alive released exactly once.
void expect_refused(const GstVideoInfo &info, GstElement *device_of, uint64_t handle, void *device,
                    const uint8_t *uuid, uint32_t pitch, const char *expected) {
  GstHarness *h = out_bridge(info, device_of);
  GstBus *bus = attach_bus(h);
  Counts counts;
  EfClientState keep{&counts, on_retain, on_release};
  EfVkImage *image = nullptr;
  fail_unless_equals_int(
      ef_vk_image_wrap(handle, device, nullptr, nullptr, uuid, pitch, &keep, &image), 0);
  EfSlotGate *gate = nullptr;
  fail_unless_equals_int(ef_slot_gate_new(0, &gate), 0);
  fail_unless_equals_int(ef_vk_image_set_acquire_release(image, gate, 1), 0);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, gst_ef_vk_image_memory_new(image, 4096));
  ef_vk_image_free(image);
  fail_if(gst_harness_push(h, buffer) == GST_FLOW_OK, "a bad image was accepted (%s)", expected);
  std::string error = pop_error(bus);
  fail_unless(error.find(expected) != std::string::npos, "error \"%s\" lacks \"%s\"", error.c_str(),
              expected);
  uint64_t value = 0;
  fail_unless_equals_int(ef_slot_gate_value(gate, &value), 0);
  fail_unless_equals_uint64(value, 1);
  ef_slot_gate_unref(gate);
  gst_harness_teardown(h);
  release_bus(bus);
  fail_unless_equals_int(counts.retains, 1);
  fail_unless_equals_int(counts.releases, 1);
}

}  // namespace

GST_START_TEST(test_bad_images_refused) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  // A device to compare against: the first bridge's.
  GstHarness *first = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstEfVulkanDevice device{};
  GstContext *context = gst_element_get_context(first->element, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  fail_unless(gst_ef_vulkan_device_context_get(context, &device));
  gst_context_unref(context);
  uint8_t foreign[16];
  std::memset(foreign, 0xee, sizeof foreign);
  int other_device = 0;
  // None of these handles is ever used: each is refused before any Vulkan call.
  expect_refused(info, first->element, 0x1234, nullptr, foreign, 0, "device uuid");
  expect_refused(info, first->element, 0x1234, &other_device, nullptr, 0, "another VkDevice");
  expect_refused(info, first->element, 0x1234, device.device, device.device_uuid, 100,
                 "row pitch 100");
  // NULL handle and NULL callbacks never make a memory: EINVAL at the C ABI.
  EfVkImage *image = nullptr;
  fail_unless_equals_int(
      ef_vk_image_wrap(0, nullptr, nullptr, nullptr, nullptr, 0, nullptr, &image), EINVAL);
  fail_unless(std::strstr(ef_last_error(), "null handle") != nullptr);
  EfClientState no_release{&device, on_retain, nullptr};
  fail_unless_equals_int(
      ef_vk_image_wrap(0x1234, nullptr, nullptr, nullptr, nullptr, 0, &no_release, &image), EINVAL);
  gst_harness_teardown(first);
}
GST_END_TEST;

// System memory under caps that promise VkImages: an error, not a crash.
GST_START_TEST(test_not_an_image_refused) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = out_bridge(info, nullptr);
  GstBus *bus = attach_bus(h);
  fail_if(gst_harness_push(h, system_frame(info, 1)) == GST_FLOW_OK);
  std::string error = pop_error(bus);
  fail_unless(error.find("not a GstEfVkImageMemory") != std::string::npos, "%s", error.c_str());
  gst_harness_teardown(h);
  release_bus(bus);
}
GST_END_TEST;

namespace {

bool gate_armed_within(EfSlotGate *gate, uint64_t value, std::chrono::milliseconds limit) {
  return ef_slot_gate_wait(gate, value, uint64_t(std::chrono::nanoseconds(limit).count())) == 0;
}

}  // namespace

// The application's helpers: arm a frame's gate once a VkFence signals or a
// timeline semaphore reaches a value, on the waiter thread, not before.
GST_START_TEST(test_release_after_gpu_work) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, 1)), GST_FLOW_OK);
  GstBuffer *frame = gst_harness_pull(h);
  GstEfVulkanDevice shared{};
  GstContext *context = gst_element_get_context(h->element, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  fail_unless(gst_ef_vulkan_device_context_get(context, &shared));
  gst_context_unref(context);
  auto device = static_cast<VkDevice>(shared.device);
  GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(frame);
  fail_unless(meta != nullptr);

  // A gate of our own stamped on a copy of the frame's image, so the test
  // sees exactly when the waiter arms it.
  EfSlotGate *gate = nullptr;
  fail_unless_equals_int(ef_slot_gate_new(0, &gate), 0);
  EfVkImage *image = nullptr;
  fail_unless_equals_int(ef_vk_image_copy(meta->image, &image), 0);
  fail_unless_equals_int(ef_vk_image_set_acquire_release(image, gate, 1), 0);
  GstBuffer *carrier = gst_buffer_new();
  GstEfVkImageMeta *mine = gst_buffer_add_ef_vk_image_meta(carrier, image);

  // Timeline: armed only once the semaphore reaches the value.
  VkSemaphoreTypeCreateInfo type{};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo sci{};
  sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  sci.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  fail_unless_equals_int(vkCreateSemaphore(device, &sci, nullptr, &semaphore), VK_SUCCESS);
  fail_unless(gst_ef_vk_image_meta_release_after_timeline(mine, device,
                                                          reinterpret_cast<guint64>(semaphore), 5));
  fail_if(gate_armed_within(gate, 1, std::chrono::milliseconds(100)), "armed before the GPU");
  VkSemaphoreSignalInfo signal{};
  signal.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  signal.semaphore = semaphore;
  signal.value = 5;
  fail_unless_equals_int(vkSignalSemaphore(device, &signal), VK_SUCCESS);
  fail_unless(gate_armed_within(gate, 1, std::chrono::seconds(2)));

  // Fence: handed over after the submission that signals it (a fence in a
  // vkQueueSubmit must not be waited on by another thread at the same time).
  fail_unless_equals_int(ef_vk_image_set_acquire_release(image, gate, 2), 0);
  gst_buffer_remove_meta(carrier, &mine->meta);
  mine = gst_buffer_add_ef_vk_image_meta(carrier, image);
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence fence = VK_NULL_HANDLE;
  fail_unless_equals_int(vkCreateFence(device, &fci, nullptr, &fence), VK_SUCCESS);
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, shared.queue_family, shared.queue_index, &queue);
  // Submitted behind a wait on the timeline's value 6, so it cannot retire
  // before the test says so.
  const uint64_t wait_value = 6;
  VkTimelineSemaphoreSubmitInfo timeline{};
  timeline.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline.waitSemaphoreValueCount = 1;
  timeline.pWaitSemaphoreValues = &wait_value;
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &timeline;
  submit.waitSemaphoreCount = 1;
  submit.pWaitSemaphores = &semaphore;
  submit.pWaitDstStageMask = &stage;
  g_mutex_lock(shared.queue_lock);
  fail_unless_equals_int(vkQueueSubmit(queue, 1, &submit, fence), VK_SUCCESS);
  g_mutex_unlock(shared.queue_lock);
  fail_unless(
      gst_ef_vk_image_meta_release_after_fence(mine, device, reinterpret_cast<guint64>(fence)));
  fail_if(gate_armed_within(gate, 2, std::chrono::milliseconds(100)), "armed before the fence");
  signal.value = 6;
  fail_unless_equals_int(vkSignalSemaphore(device, &signal), VK_SUCCESS);
  fail_unless(gate_armed_within(gate, 2, std::chrono::seconds(2)));

  // Without a device or a handle: refused, nothing queued.
  fail_if(gst_ef_vk_image_meta_release_after_fence(mine, nullptr, 1));
  fail_unless(std::strstr(ef_last_error(), "VkDevice") != nullptr, "%s", ef_last_error());
  vkDestroyFence(device, fence, nullptr);
  vkDestroySemaphore(device, semaphore, nullptr);
  fail_unless(gst_ef_vk_image_meta_release(meta));
  gst_buffer_unref(carrier);
  ef_vk_image_free(image);
  ef_slot_gate_unref(gate);
  gst_buffer_unref(frame);
  fail_unless_equals_uint64(stat(h->element, "validation-messages"), 0);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Formats the bridge does not carry are refused at negotiation; a frame
// smaller than its caps is an error on the bus, and the next good frame goes
// through.
GST_START_TEST(test_bad_input_into_vulkan) {
  GstElement *bridge = gst_element_factory_make("efvkbridge", nullptr);
  GstPad *sink = gst_element_get_static_pad(bridge, "sink");
  GstVideoInfo i420 = video_info(GST_VIDEO_FORMAT_I420, 64, 16);
  GstCaps *caps = caps_for(i420);
  fail_if(gst_pad_query_accept_caps(sink, caps), "I420 accepted");
  gst_caps_unref(caps);
  gst_object_unref(sink);
  gst_object_unref(bridge);

  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info);
  GstBus *bus = attach_bus(h);
  fail_if(gst_harness_push(h, gst_buffer_new_allocate(nullptr, info.size / 2, nullptr)) ==
          GST_FLOW_OK);
  std::string error = pop_error(bus);
  fail_unless(error.find("Invalid input frame") != std::string::npos, "%s", error.c_str());
  fail_unless_equals_int(gst_harness_push(h, system_frame(info, 3)), GST_FLOW_OK);
  GstBuffer *b = gst_harness_pull(h);
  fail_unless(gst_buffer_get_ef_vk_image_meta(b) != nullptr);
  gst_buffer_unref(b);
  gst_harness_teardown(h);
  release_bus(bus);
}
GST_END_TEST;

// A memfd shorter than its memory claims is refused by name before the
// import or the copy into staging, by the max-errors rule; later frames
// come out with their images and bytes.
GST_START_TEST(test_short_fds_refused) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  expect_short_fds_refused(h, h->element, info, [&](uint32_t seed) {
    fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, seed)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull(h);
    fail_unless(out != nullptr && gst_buffer_get_ef_vk_image_meta(out) != nullptr,
                "good frame %u: no images", seed);
    const std::string bad = check_buffer(out, info, seed);
    fail_unless(bad.empty(), "good frame %u: %s", seed, bad.c_str());
    gst_buffer_unref(out);
  });
  fail_unless_equals_uint64(stat(h->element, "validation-messages"), 0);
  gst_harness_teardown(h);
}
GST_END_TEST;

// GAP buffers go on as gap events in order with the frames, never a bad
// frame brought into Vulkan; the frames after them carry their images.
GST_START_TEST(test_gap_buffers) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  expect_gaps_forwarded(
      h, h->element, [&](uint32_t seed) { return memfd_frame(info, seed); },
      [&](GstBuffer *out, uint32_t seed) {
        fail_unless(gst_buffer_get_ef_vk_image_meta(out) != nullptr, "frame %u: no images", seed);
        const std::string bad = check_buffer(out, info, seed);
        fail_unless(bad.empty(), "frame %u: %s", seed, bad.c_str());
      });
  fail_unless_equals_uint64(stat(h->element, "validation-messages"), 0);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Frames whose fd is no buffer (/dev/null, a disk file holding a real frame,
// a pipe) are refused by name, never imported into Vulkan or copied; the
// next memfd frame's images hold its bytes (read back by a second bridge).
GST_START_TEST(test_not_a_buffer_refused) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 62, 46);
  GstHarness *in = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  GstHarness *out = nullptr;
  expect_not_a_buffer_refused(in, info, [&](uint32_t seed) {
    fail_unless_equals_int(gst_harness_push(in, memfd_frame(info, seed)), GST_FLOW_OK);
    GstBuffer *imported = gst_harness_pull(in);
    fail_unless(imported != nullptr, "no output for the good frame %u", seed);
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(imported);
    fail_unless(meta != nullptr, "no GstEfVkImageMeta on the good frame %u", seed);
    if (!out)
      out = out_bridge(info, in->element);
    fail_unless_equals_int(gst_harness_push(out, image_buffer(meta)), GST_FLOW_OK);
    gst_buffer_unref(imported);
    const std::string why = pull_string(out, info, seed);
    fail_unless(why.empty(), "good frame %u: %s", seed, why.c_str());
  });
  fail_unless_equals_uint64(stat(in->element, "validation-messages"), 0);
  gst_harness_teardown(out);
  gst_harness_teardown(in);
}
GST_END_TEST;

namespace {

// Ends the stream at `src` and waits for EOS (false on an error or after 30 s).
bool end_stream(GstElement *pipeline, GstElement *src) {
  GstFlowReturn ret = GST_FLOW_ERROR;
  g_signal_emit_by_name(src, "end-of-stream", &ret);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 30 * GST_SECOND,
                                             GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  const bool eos = m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
  if (m)
    gst_message_unref(m);
  gst_object_unref(bus);
  return eos;
}

// `description` with an appsrc named "src", which is given caps of `info`.
GstElement *appsrc_pipeline(const char *description, const GstVideoInfo &info) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description, &error);
  fail_unless(pipeline != nullptr, "%s", error ? error->message : "");
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstCaps *caps = caps_for(info);
  g_object_set(src, "caps", caps, nullptr);
  gst_caps_unref(caps);
  gst_object_unref(src);
  return pipeline;
}

// What one run saw, checked on the streaming thread: each frame's VkImages
// copied out again by a second bridge on the same device.
struct RunCheck {
  GstVideoInfo info{};
  GstElement *bridge = nullptr;
  GstHarness *out = nullptr;
  uint32_t next_seed = 0;
  uint32_t frames = 0;
  std::string problems;
};

void check_handoff(GstElement *, GstBuffer *buffer, GstPad *, gpointer data) {
  auto *run = static_cast<RunCheck *>(data);
  const uint32_t seed = run->next_seed++;
  ++run->frames;
  GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(buffer);
  if (!meta) {
    run->problems += "frame " + std::to_string(seed) + " has no meta; ";
    return;
  }
  if (!run->out)
    run->out = out_bridge(run->info, run->bridge);
  if (gst_harness_push(run->out, image_buffer(meta)) != GST_FLOW_OK) {
    run->problems += "frame " + std::to_string(seed) + " not copied out; ";
    return;
  }
  std::string why = pull_string(run->out, run->info, seed);
  if (!why.empty())
    run->problems += "frame " + std::to_string(seed) + ": " + why + "; ";
}

void run_once(GstElement *pipeline, const GstVideoInfo &info, uint32_t first_seed) {
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  RunCheck run;
  run.info = info;
  run.bridge = gst_bin_get_by_name(GST_BIN(pipeline), "bridge");
  run.next_seed = first_seed;
  const gulong id = g_signal_connect(sink, "handoff", G_CALLBACK(check_handoff), &run);
  fail_if(gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  for (uint32_t seed = first_seed; seed < first_seed + 3; ++seed) {
    GstFlowReturn ret = GST_FLOW_ERROR;
    g_signal_emit_by_name(src, "push-buffer", memfd_frame(info, seed), &ret);
    fail_unless_equals_int(ret, GST_FLOW_OK);
  }
  fail_unless(end_stream(pipeline, src), "run of seed %u: no EOS", first_seed);
  g_signal_handler_disconnect(sink, id);
  fail_unless(run.problems.empty(), "run of seed %u: %s", first_seed, run.problems.c_str());
  fail_unless_equals_int(run.frames, 3);
  fail_unless_equals_uint64(stat(run.bridge, "validation-messages"), 0);
  if (run.out)
    gst_harness_teardown(run.out);
  for (GstElement *e : {src, sink, run.bridge})
    gst_object_unref(e);
}

}  // namespace

// The same pipeline started again, through NULL and through READY: each run
// opens a device of its own. The pipeline remembers the context the last run
// announced; its device is gone, so it is skipped, never used.
GST_START_TEST(test_restart_same_pipeline) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 66, 34);
  GstElement *pipeline = appsrc_pipeline(
      "appsrc name=src format=time ! efvkbridge name=bridge release-timeout=50 ! "
      "fakesink name=sink signal-handoffs=true sync=false",
      info);
  for (uint32_t run = 0; run < 6; ++run) {
    run_once(pipeline, info, 10 * run + 1);
    const GstState between = run % 2 ? GST_STATE_READY : GST_STATE_NULL;
    fail_unless_equals_int(gst_element_set_state(pipeline, between), GST_STATE_CHANGE_SUCCESS);
    GstElement *bridge = gst_bin_get_by_name(GST_BIN(pipeline), "bridge");
    GstContext *stale = gst_element_get_context(bridge, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
    fail_unless(stale == nullptr, "the element kept the context of a device it destroyed");
    gst_object_unref(bridge);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
}
GST_END_TEST;

namespace {

// Sets `context` on a new bridge and expects its caps to fail with `expected`.
void expect_context_refused(GstContext *context, const char *expected) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = gst_harness_new("efvkbridge");
  GstBus *bus = attach_bus(h);
  gst_element_set_context(h->element, context);
  GstCaps *caps = caps_for(info);
  GstCaps *out = gst_caps_copy(caps);
  gst_caps_set_features(out, 0, gst_caps_features_new(GST_CAPS_FEATURE_META_EF_VK_IMAGE, nullptr));
  gst_harness_set_caps(h, caps, out);
  fail_if(gst_harness_push(h, memfd_frame(info, 1)) == GST_FLOW_OK, "%s accepted", expected);
  std::string error = pop_error(bus);
  fail_unless(error.find(expected) != std::string::npos, "error \"%s\" lacks \"%s\"", error.c_str(),
              expected);
  gst_harness_teardown(h);
  gst_object_unref(bus);
}

}  // namespace

// A context naming a device that was destroyed, or a physical device not of
// its instance, is refused with an error; neither is dereferenced.
GST_START_TEST(test_bad_context_refused) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *maker = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  fail_unless_equals_int(gst_harness_push(maker, memfd_frame(info, 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(maker));
  GstContext *live = gst_element_get_context(maker->element, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  fail_unless(live != nullptr);

  // The physical device of another instance.
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  VkInstance other = VK_NULL_HANDLE;
  fail_unless_equals_int(vkCreateInstance(&ici, nullptr, &other), VK_SUCCESS);
  uint32_t n = 1;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  vkEnumeratePhysicalDevices(other, &n, &physical);
  GstEfVulkanDevice shared{};
  fail_unless(gst_ef_vulkan_device_context_get(live, &shared));
  shared.physical_device = physical;
  GstContext *mismatched = gst_ef_vulkan_device_context_new(&shared);
  expect_context_refused(mismatched, "not one of its instance's");
  gst_context_unref(mismatched);
  fail_unless_equals_int(gst_ef_vulkan_device_context_get(live, &shared), TRUE);
  shared.queue_index = 7;
  GstContext *no_queue = gst_ef_vulkan_device_context_new(&shared);
  expect_context_refused(no_queue, "does not exist");
  gst_context_unref(no_queue);
  vkDestroyInstance(other, nullptr);

  // The first bridge stops: its device goes, the context it announced is stale.
  gst_harness_teardown(maker);
  expect_context_refused(live, "destroyed");
  gst_context_unref(live);
}
GST_END_TEST;

namespace {

int open_fds() {
  int n = 0;
  GDir *dir = g_dir_open("/proc/self/fd", 0, nullptr);
  while (dir && g_dir_read_name(dir))
    ++n;
  if (dir)
    g_dir_close(dir);
  return n;
}

using Clock = std::chrono::steady_clock;

// When each frame was handed back (its last reference dropped), by number.
struct Releases {
  std::mutex lock;
  std::vector<Clock::time_point> pushed;
  std::vector<Clock::time_point> released;
};
struct Released {
  Releases *all;
  size_t number;
};
void on_released(gpointer data, GstMiniObject *) {
  auto *r = static_cast<Released *>(data);
  std::lock_guard l(r->all->lock);
  r->all->released[r->number] = Clock::now();
  delete r;
}

}  // namespace

// A producer that makes a new memfd per frame and pushes back to back, to a
// consumer that never arms: the frames held are bounded by max-held (the
// streaming thread waits for the oldest), so open fds stay flat, and each
// frame goes back within release-timeout and a small margin.
GST_START_TEST(test_fresh_memories_bounded) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
  constexpr guint kTimeoutMs = 40;
  constexpr size_t kFrames = 2000;
  g_object_set(h->element, "release-timeout", kTimeoutMs, nullptr);
  Releases r;
  r.pushed.resize(kFrames);
  r.released.resize(kFrames);
  // Open fds: the most seen in each half (after a warm-up, while the cache
  // fills); growth that does not flatten shows in the second half.
  int most_fds[2] = {0, 0};
  const int fds_before = open_fds();
  for (size_t n = 0; n < kFrames; ++n) {
    GstBuffer *frame = memfd_frame(info, uint32_t(n));
    gst_mini_object_weak_ref(GST_MINI_OBJECT(frame), on_released, new Released{&r, n});
    fail_unless_equals_int(gst_harness_push(h, frame), GST_FLOW_OK);
    {
      std::lock_guard l(r.lock);
      r.pushed[n] = Clock::now();
    }
    gst_buffer_unref(gst_harness_pull(h));
    if (n >= 200) {
      int &most = most_fds[n < (kFrames + 200) / 2 ? 0 : 1];
      most = std::max(most, open_fds());
    }
  }
  guint max_held = 0, capacity = 0;
  g_object_get(h->element, "max-held", &max_held, "cache-capacity", &capacity, nullptr);
  fail_unless(stat(h->element, "held-peak") <= max_held,
              "%" G_GUINT64_FORMAT " frames held, max %u", stat(h->element, "held-peak"), max_held);
  fail_unless(stat(h->element, "held-waits") > 0, "the bound was never reached: no test");
  // A held frame pins its memfd and its import's fd; a cached import its
  // fd and the retained one.
  const int bound = fds_before + 2 * int(max_held + capacity) + 8;
  fail_unless(std::max(most_fds[0], most_fds[1]) <= bound, "open fds %d, %d (from %d; bound %d)",
              most_fds[0], most_fds[1], fds_before, bound);
  fail_unless(most_fds[1] <= most_fds[0] + 4, "open fds grew from %d to %d over %zu frames",
              most_fds[0], most_fds[1], kFrames);
  // Every frame goes back once its timeout is over.
  const auto end = Clock::now() + std::chrono::seconds(5);
  while (stat(h->element, "gate-timeouts") < kFrames && Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  fail_unless_equals_uint64(stat(h->element, "gate-timeouts"), kFrames);
  std::vector<double> held_ms;
  {
    std::lock_guard l(r.lock);
    for (size_t n = 0; n < kFrames; ++n) {
      fail_if(r.released[n] == Clock::time_point{}, "frame %zu never released", n);
      held_ms.push_back(
          std::chrono::duration<double, std::milli>(r.released[n] - r.pushed[n]).count());
    }
  }
  std::sort(held_ms.begin(), held_ms.end());
  // The margin is for wake-up latency on a loaded machine; a hold queued
  // behind an unbounded backlog is late by the whole backlog.
  const double p90 = held_ms[kFrames * 9 / 10], longest = held_ms.back();
  fail_unless(p90 < kTimeoutMs + 20 && longest < kTimeoutMs + 100,
              "holds: 90%% within %.1f ms, longest %.1f ms, with release-timeout=%u", p90, longest,
              kTimeoutMs);
  fail_unless_equals_uint64(stat(h->element, "validation-messages"), 0);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

std::atomic<int> live_wrappers{0};

GstBuffer *ring_wrapper(GstAllocator *allocator, int fd, const GstVideoInfo &info) {
  GstMemory *mem = gst_fd_allocator_alloc(allocator, fd, info.size, GST_FD_MEMORY_FLAG_DONT_CLOSE);
  ++live_wrappers;
  gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), g_quark_from_static_string("ef-test-live"),
                            &live_wrappers, [](gpointer) { --live_wrappers; });
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, mem);
  return buffer;
}

size_t heap_in_use() {
  return mallinfo2().uordblks;
}

}  // namespace

// GstFdAllocator wrappers made afresh per frame (DONT_CLOSE) over a ring of
// four memfds, pushed back to back through appsrc: four imports, every later
// frame a hit, and nothing kept per frame. Frames the bridge holds are
// bounded (the appsrc queue, max-held and a few in flight), the heap in use
// stays flat, and every wrapper is freed at NULL.
GST_START_TEST(test_fd_wrappers_over_a_ring_flat) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_NV12, 320, 240);
  GstElement *pipeline = appsrc_pipeline(
      "appsrc name=src format=time block=true max-buffers=4 ! efvkbridge name=bridge "
      "release-timeout=0 ! fakesink sync=false",
      info);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *bridge = gst_bin_get_by_name(GST_BIN(pipeline), "bridge");
  fail_if(gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
  GstAllocator *allocator = gst_fd_allocator_new();
  std::vector<int> fds;
  for (int i = 0; i < 4; ++i) {
    fds.push_back(make_memfd("ef-vk-ring", info.size));
    write_frame_to_fd(fds.back(), info, i + 1);
  }
  constexpr size_t kFrames = 10000, kWarmUp = 1000;
  size_t heap_warm = 0;
  int most_live = 0;
  for (size_t n = 0; n < kFrames; ++n) {
    if (n == kWarmUp)
      heap_warm = heap_in_use();
    GstBuffer *frame = ring_wrapper(allocator, fds[n % 4], info);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    GstFlowReturn ret = GST_FLOW_ERROR;
    g_signal_emit_by_name(src, "push-buffer", frame, &ret);
    gst_buffer_unref(frame);
    fail_unless_equals_int(ret, GST_FLOW_OK);
    most_live = std::max(most_live, live_wrappers.load());
  }
  fail_unless(end_stream(pipeline, src), "no EOS");
  const size_t heap_end = heap_in_use();
  fail_unless_equals_uint64(stat(bridge, "imports"), 4);
  fail_unless_equals_uint64(stat(bridge, "hits"), kFrames - 4);
  fail_unless_equals_uint64(stat(bridge, "validation-messages"), 0);
  guint max_held = 0;
  g_object_get(bridge, "max-held", &max_held, nullptr);
  fail_unless(most_live <= int(max_held) + 4 + 4, "%d wrappers alive at once (max-held %u)",
              most_live, max_held);
  // A backlog of held frames costs about 1 KiB each.
  const long grown = long(heap_end) - long(heap_warm);
  fail_unless(grown < 128 * 1024, "heap in use grew by %ld bytes over %zu frames", grown,
              kFrames - kWarmUp);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  fail_unless_equals_int(live_wrappers.load(), 0);
  for (GstElement *e : {src, bridge, pipeline})
    gst_object_unref(e);
  gst_object_unref(allocator);
  for (int fd : fds)
    close(fd);
}
GST_END_TEST;

namespace {

// Into Vulkan: `n_bad` truncated frames under max-errors, then a good frame
// that must come out with its images and its bytes.
void into_max_errors(gint max_errors, int n_bad) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info);
  GstBus *bus = attach_bus(h);
  push_bad_frames(
      h, h->element, bus, max_errors, n_bad,
      [&] { return gst_buffer_new_allocate(nullptr, info.size / 2, nullptr); },
      "Invalid input frame: buffer is truncated");
  fail_unless_equals_int(gst_harness_push(h, system_frame(info, 3)), GST_FLOW_OK);
  GstBuffer *b = gst_harness_try_pull(h);
  fail_unless(b != nullptr, "the good frame after the bad ones did not come out");
  fail_unless(gst_buffer_get_ef_vk_image_meta(b) != nullptr);
  std::string why = check_buffer(b, info, 3);
  fail_unless(why.empty(), "%s", why.c_str());
  gst_buffer_unref(b);
  fail_unless_equals_uint64(stat(h->element, "validation-messages"), 0);
  gst_harness_teardown(h);
  gst_object_unref(bus);
}

}  // namespace

GST_START_TEST(test_max_errors_default) {
  into_max_errors(0, 1);
}
GST_END_TEST;

GST_START_TEST(test_max_errors_two) {
  into_max_errors(2, 3);
}
GST_END_TEST;

GST_START_TEST(test_max_errors_never) {
  into_max_errors(-1, 6);
}
GST_END_TEST;

// Out of Vulkan, a frame of no VkImages is a bad frame like any other.
GST_START_TEST(test_max_errors_out_of_vulkan) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = out_bridge(info, nullptr);
  GstBus *bus = attach_bus(h);
  push_bad_frames(
      h, h->element, bus, 2, 3, [&] { return system_frame(info, 1); }, "not a GstEfVkImageMemory");
  gst_harness_teardown(h);
  gst_object_unref(bus);
}
GST_END_TEST;

// A size beyond the device's images: refused naming the limit, not "Cannot
// parse caps".
GST_START_TEST(test_size_beyond_vulkan_limit) {
  GstHarness *h = gst_harness_new("efvkbridge");
  expect_caps_refused(h, "video/x-raw, format=RGBA, width=100000, height=100000",
                      "video/x-raw(" GST_CAPS_FEATURE_META_EF_VK_IMAGE
                      "), format=RGBA, width=100000, height=100000",
                      "width 100000 exceeds this Vulkan device's maxImageDimension2D");
  gst_harness_teardown(h);
}
GST_END_TEST;

// Once the bridge has its device, the caps it answers carry the device's
// image limit, so a source that can choose picks a size that works.
GST_START_TEST(test_caps_carry_vulkan_limit) {
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = gst_harness_new("efvkbridge");  // no caps downstream: any size
  gst_harness_set_src_caps(h, caps_for(info));
  fail_unless_equals_int(gst_harness_push(h, system_frame(info, 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstPad *sink = gst_element_get_static_pad(h->element, "sink");
  expect_bounded_sides(sink, "video/x-raw, format=RGBA");
  gst_object_unref(sink);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// Each Vulkan device present: its name and 32 hex digits of its UUID, read
// from the loader here, not from the bridge.
std::vector<std::pair<std::string, std::string>> present_devices() {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  fail_unless(vkCreateInstance(&ici, nullptr, &instance) == VK_SUCCESS);
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(instance, &n, devices.data());
  std::vector<std::pair<std::string, std::string>> present;
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceIDProperties id{};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &id;
    vkGetPhysicalDeviceProperties2(d, &props);
    std::string hex;
    for (uint8_t byte : id.deviceUUID) {
      char two[3];
      std::snprintf(two, sizeof two, "%02x", byte);
      hex += two;
    }
    present.emplace_back(props.properties.deviceName, hex);
  }
  vkDestroyInstance(instance, nullptr);
  return present;
}

// "6d657361..." as vulkaninfo prints it: 8-4-4-4-12 with dashes.
std::string dashed(const std::string &hex) {
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace

// device-uuid: a value that is no UUID is refused when set (a warning, the
// value kept); the dashed form vulkaninfo prints is taken; a UUID no device
// has is an error at start naming every device present with its UUID.
GST_START_TEST(test_device_uuid_checked) {
  const auto present = present_devices();
  fail_if(present.empty());
  GstElement *bridge = gst_element_factory_make("efvkbridge", nullptr);
  for (const char *bad : {"xyz", "0123", "6d65736132352e302e372d327e62700g", "6d657361-3235"}) {
    const std::string said =
        warnings_during([&] { g_object_set(bridge, "device-uuid", bad, nullptr); });
    fail_unless(said.find("is no device UUID") != std::string::npos, "%s: \"%s\"", bad,
                said.c_str());
    fail_unless(string_property(bridge, "device-uuid").empty(), "%s was kept", bad);
  }
  const std::string first = present[0].second;
  fail_if(warnings_during([&] {
            g_object_set(bridge, "device-uuid", dashed(first).c_str(), nullptr);
          }).size());
  fail_unless(string_property(bridge, "device-uuid") == first, "%s",
              string_property(bridge, "device-uuid").c_str());
  gst_object_unref(bridge);

  std::string absent(32, '0');
  for (const auto &[name, uuid] : present)
    fail_if(uuid == absent, "a device has the all-zero UUID: no absent one to ask for");
  GstHarness *h = gst_harness_new_parse(("efvkbridge device-uuid=" + absent).c_str());
  GstBus *bus = attach_bus(h);
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  gst_harness_set_caps(h, caps_for(info), caps_for(info, GST_CAPS_FEATURE_META_EF_VK_IMAGE));
  fail_if(gst_harness_push(h, system_frame(info, 1)) == GST_FLOW_OK);
  const std::string error = pop_error(bus);
  fail_unless(error.find("no Vulkan device has device-uuid " + absent) != std::string::npos, "%s",
              error.c_str());
  for (const auto &[name, uuid] : present)
    fail_unless(error.find(name) != std::string::npos &&
                    error.find("device-uuid " + uuid) != std::string::npos,
                "%s is not named: %s", name.c_str(), error.c_str());
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// The device is opened at start: device-index and device-uuid set while
// playing are refused with a warning naming the state, and read back what
// runs.
GST_START_TEST(test_device_refused_while_playing) {
  const GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 64, 16);
  GstHarness *h = into_bridge(info);
  fail_unless_equals_int(gst_harness_push(h, system_frame(info, 1)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  const std::string in_use = string_property(h->element, "device-uuid");
  const std::string said = warnings_during([&] {
    g_object_set(h->element, "device-index", 0, "device-uuid", std::string(32, 'f').c_str(),
                 nullptr);
  });
  for (const char *name : {"device-index can only be set in the NULL or READY state",
                           "device-uuid can only be set in the NULL or READY state", "PLAYING"})
    fail_unless(said.find(name) != std::string::npos, "%s: \"%s\"", name, said.c_str());
  gint index = 0;
  g_object_get(h->element, "device-index", &index, nullptr);
  fail_unless_equals_int(index, -1);
  fail_unless(string_property(h->element, "device-uuid") == in_use, "device-uuid changed");
  gst_harness_teardown(h);
}
GST_END_TEST;

// Caps beyond the limit in gst-launch-1.0: the line links and the first
// error names the limit, from the bridge.
GST_START_TEST(test_size_limit_in_gst_launch) {
  for (const char *size : {"width=17000,height=16", "width=100000,height=100000"}) {
    const std::string line = std::string("videotestsrc num-buffers=1 ! video/x-raw,") + size +
                             " ! efvkbridge name=b ! fakesink";
    const std::string error = launch_error(line.c_str());
    fail_unless(error.rfind("b: b cannot take these frames: width ", 0) == 0 &&
                    error.find("exceeds") != std::string::npos,
                "%s: %s", size, error.c_str());
  }
}
GST_END_TEST;

// Without a Vulkan device nothing here can run: SKIP with the reason.
static bool vulkan_present(std::string &why) {
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  VkInstance instance = VK_NULL_HANDLE;
  if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
    why = "no Vulkan instance can be made (no ICD installed)";
    return false;
  }
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  vkDestroyInstance(instance, nullptr);
  if (n == 0)
    why = "no Vulkan physical device";
  return n > 0;
}

static Suite *vkbridge_suite() {
  Suite *s = suite_create("efvkbridge");
  TCase *tc = tcase_create("vk");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_round_trip_rgba);
  tcase_add_test(tc, test_round_trip_gray_nv12);
  tcase_add_test(tc, test_unimportable_stride_copies);
  tcase_add_test(tc, test_system_memory_copies);
  tcase_add_test(tc, test_staging_timeout_names_frame);
  tcase_add_test(tc, test_aligned_system_memory_imports);
  tcase_add_test(tc, test_slow_consumer_stalls_producer);
  tcase_add_test(tc, test_never_armed_times_out);
  tcase_add_test(tc, test_bad_images_refused);
  tcase_add_test(tc, test_not_an_image_refused);
  tcase_add_test(tc, test_bad_input_into_vulkan);
  tcase_add_test(tc, test_not_a_buffer_refused);
  tcase_add_test(tc, test_gap_buffers);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_release_after_gpu_work);
  tcase_add_test(tc, test_max_errors_default);
  tcase_add_test(tc, test_max_errors_two);
  tcase_add_test(tc, test_max_errors_never);
  tcase_add_test(tc, test_max_errors_out_of_vulkan);
  tcase_add_test(tc, test_size_beyond_vulkan_limit);
  tcase_add_test(tc, test_caps_carry_vulkan_limit);
  tcase_add_test(tc, test_device_uuid_checked);
  tcase_add_test(tc, test_device_refused_while_playing);
  tcase_add_test(tc, test_size_limit_in_gst_launch);
  tcase_add_test(tc, test_restart_same_pipeline);
  tcase_add_test(tc, test_bad_context_refused);
  tcase_add_test(tc, test_fresh_memories_bounded);
  tcase_add_test(tc, test_fd_wrappers_over_a_ring_flat);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  gst_check_init(&argc, &argv);
  std::string why;
  if (!vulkan_present(why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  SRunner *runner = srunner_create(vkbridge_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
