// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge on lavapipe, with the Khronos validation layer on the bridge's
// device (EF_VK_VALIDATION=1, set by meson): every test ends with zero
// validation messages. Pixels are checked exactly by a round trip through
// both directions: memfd frames into Vulkan (imported, or copied into staging
// images), the resulting VkImages out of Vulkan again (GPU copy into memfds),
// compared byte for byte with what was written.
// The C++ headers first: gstcheck.h defines a macro named fail().
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/ef/gstef.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "frames.hpp"
#include "harness.hpp"

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
    GstVideoFrame vf;
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
  tcase_add_test(tc, test_aligned_system_memory_imports);
  tcase_add_test(tc, test_slow_consumer_stalls_producer);
  tcase_add_test(tc, test_never_armed_times_out);
  tcase_add_test(tc, test_bad_images_refused);
  tcase_add_test(tc, test_not_an_image_refused);
  tcase_add_test(tc, test_bad_input_into_vulkan);
  tcase_add_test(tc, test_release_after_gpu_work);
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
