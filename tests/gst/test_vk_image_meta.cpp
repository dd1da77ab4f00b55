// SPDX-License-Identifier: LGPL-2.1-or-later
// VkImages in GStreamer buffers: GstEfVkImageMemory, GstEfVkImageMeta and
// the "ef.vulkan.device" context. No Vulkan device is needed: nothing here
// calls Vulkan, and the keep-alive and gate are what is checked.
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>

#include <cstring>

namespace {

struct Counts {
  int retains = 0;
  int releases = 0;
};

void on_retain(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->retains;
}
void on_release(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->releases;
}

EfVkImage *wrap(Counts &counts) {
  EfClientState state{&counts, on_retain, on_release};
  EfVkImage *image = nullptr;
  fail_unless_equals_int(
      ef_vk_image_wrap(0x1234, nullptr, nullptr, nullptr, nullptr, 256, &state, &image), 0);
  return image;
}

}  // namespace

// The keep-alive is retained once and released exactly once, after the
// last memory, share and meta referring to the image are gone.
GST_START_TEST(test_memory_keeps_producer_alive) {
  Counts counts;
  EfVkImage *image = wrap(counts);
  GstMemory *mem = gst_ef_vk_image_memory_new(image, 256 * 64);
  ef_vk_image_free(image);  // the application drops its handle at once
  fail_unless(gst_is_ef_vk_image_memory(mem));
  GstAllocator *registered = gst_allocator_find(GST_EF_VK_IMAGE_MEMORY_TYPE);
  fail_unless(registered == mem->allocator, "the VkImage allocator is not registered");
  gst_object_unref(registered);
  uint64_t handle = 0;
  fail_unless_equals_int(ef_vk_image_get_handle(gst_ef_vk_image_memory_get_image(mem), &handle), 0);
  fail_unless_equals_uint64(handle, 0x1234);
  GstMapInfo map;
  fail_if(gst_memory_map(mem, &map, GST_MAP_READ));  // GPU bytes: not mappable
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, mem);
  GstBuffer *copy = gst_buffer_copy(buffer);  // shares the memory
  gst_buffer_unref(buffer);
  fail_unless_equals_int(counts.releases, 0);
  gst_buffer_unref(copy);
  fail_unless_equals_int(counts.retains, 1);
  fail_unless_equals_int(counts.releases, 1);
}
GST_END_TEST;

GST_START_TEST(test_other_memory_has_no_image) {
  GstMemory *mem = gst_allocator_alloc(nullptr, 16, nullptr);
  fail_if(gst_is_ef_vk_image_memory(mem));
  fail_unless(gst_ef_vk_image_memory_get_image(mem) == nullptr);
  gst_memory_unref(mem);
}
GST_END_TEST;

// The meta's release arms the producer's gate; without a gate it says so.
GST_START_TEST(test_meta_release_arms_gate) {
  Counts counts;
  EfVkImage *image = wrap(counts);
  GstBuffer *buffer = gst_buffer_new();
  GstEfVkImageMeta *meta = gst_buffer_add_ef_vk_image_meta(buffer, image);
  fail_unless(meta != nullptr);
  fail_if(gst_ef_vk_image_meta_release(meta));
  fail_unless(std::strstr(ef_last_error(), "no slot-release gate") != nullptr);

  EfSlotGate *gate = nullptr;
  fail_unless_equals_int(ef_slot_gate_new(0, &gate), 0);
  fail_unless_equals_int(ef_vk_image_set_acquire_release(image, gate, 7), 0);
  GstBuffer *gated = gst_buffer_new();
  GstEfVkImageMeta *gated_meta = gst_buffer_add_ef_vk_image_meta(gated, image);
  fail_unless(gst_ef_vk_image_meta_release(gated_meta));
  fail_unless_equals_int(ef_slot_gate_wait(gate, 7, 0), 0);
  ef_slot_gate_unref(gate);
  ef_vk_image_free(image);
  gst_buffer_unref(gated);
  gst_buffer_unref(buffer);
  fail_unless_equals_int(counts.releases, 1);
}
GST_END_TEST;

// Kept on copies sharing the memories, dropped on deep copies.
GST_START_TEST(test_meta_copy_semantics) {
  Counts counts;
  EfVkImage *image = wrap(counts);
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, 64, nullptr);
  fail_unless(gst_buffer_add_ef_vk_image_meta(buffer, image) != nullptr);
  ef_vk_image_free(image);
  GstBuffer *shallow = gst_buffer_copy(buffer);
  GstBuffer *deep = gst_buffer_copy_deep(buffer);
  fail_unless(gst_buffer_get_ef_vk_image_meta(shallow) != nullptr);
  fail_unless(gst_buffer_get_ef_vk_image_meta(deep) == nullptr);
  gst_buffer_unref(deep);
  gst_buffer_unref(shallow);
  gst_buffer_unref(buffer);
  fail_unless_equals_int(counts.retains, 1);
  fail_unless_equals_int(counts.releases, 1);
}
GST_END_TEST;

GST_START_TEST(test_device_context_round_trip) {
  int instance, phys, device;
  GMutex lock;
  GstEfVulkanDevice in{&instance, &phys, &device, 2, 1, {}, &lock};
  for (int i = 0; i < 16; ++i)
    in.device_uuid[i] = guint8(0xa0 + i);
  GstContext *context = gst_ef_vulkan_device_context_new(&in);
  fail_unless(context != nullptr);
  fail_unless(gst_context_is_persistent(context));
  GstEfVulkanDevice out{};
  fail_unless(gst_ef_vulkan_device_context_get(context, &out));
  fail_unless(out.instance == &instance && out.physical_device == &phys && out.device == &device);
  fail_unless_equals_int(out.queue_family, 2);
  fail_unless_equals_int(out.queue_index, 1);
  fail_unless(std::memcmp(out.device_uuid, in.device_uuid, 16) == 0);
  fail_unless(out.queue_lock == &lock);
  gst_context_unref(context);

  GstContext *other = gst_context_new("gst.gl.GLDisplay", TRUE);
  fail_if(gst_ef_vulkan_device_context_get(other, &out));
  gst_context_unref(other);
  GstEfVulkanDevice missing = in;
  missing.device = nullptr;
  fail_unless(gst_ef_vulkan_device_context_new(&missing) == nullptr);
}
GST_END_TEST;

// NV12 as two plane images: every plane is copied along and freed, and the
// gate is plane 0's.
GST_START_TEST(test_meta_planes) {
  Counts counts;
  EfVkImage *y = wrap(counts);
  EfVkImage *uv = nullptr;
  fail_unless_equals_int(ef_vk_image_copy(y, &uv), 0);
  fail_unless_equals_int(ef_vk_image_set_plane_format(y, EF_PLANE_FORMAT_R8), 0);
  fail_unless_equals_int(ef_vk_image_set_plane_format(uv, EF_PLANE_FORMAT_RG8), 0);
  const EfVkImage *planes[] = {y, uv};
  GstBuffer *buffer = gst_buffer_new();
  ASSERT_CRITICAL(gst_buffer_add_ef_vk_image_meta_planes(buffer, planes, 0));
  GstEfVkImageMeta *meta = gst_buffer_add_ef_vk_image_meta_planes(buffer, planes, 2);
  ef_vk_image_free(y);
  ef_vk_image_free(uv);
  fail_unless(meta != nullptr);
  fail_unless_equals_int(meta->n_planes, 2);
  fail_unless(meta->image == meta->planes[0]);
  // Taking ownership: the meta frees the wrapper, the keep-alive goes once.
  EfVkImage *taken = nullptr;
  fail_unless_equals_int(ef_vk_image_copy(meta->image, &taken), 0);
  GstBuffer *other = gst_buffer_new();
  fail_unless(gst_buffer_take_ef_vk_image_meta_planes(other, &taken, 1)->image == taken);
  gst_buffer_unref(other);
  GstBuffer *shallow = gst_buffer_copy(buffer);
  GstEfVkImageMeta *copied = gst_buffer_get_ef_vk_image_meta(shallow);
  fail_unless(copied != nullptr && copied->n_planes == 2);
  fail_if(gst_ef_vk_image_meta_release(copied));  // no gate stamped
  // A fence wait needs a gate too, and a device.
  fail_if(gst_ef_vk_image_meta_release_after_fence(copied, nullptr, 0));
  gst_buffer_unref(shallow);
  gst_buffer_unref(buffer);
  fail_unless_equals_int(counts.retains, 1);
  fail_unless_equals_int(counts.releases, 1);
}
GST_END_TEST;

static Suite *vk_suite() {
  Suite *s = suite_create("vk_image_meta");
  TCase *tc = tcase_create("vk");
  tcase_add_test(tc, test_memory_keeps_producer_alive);
  tcase_add_test(tc, test_other_memory_has_no_image);
  tcase_add_test(tc, test_meta_release_arms_gate);
  tcase_add_test(tc, test_meta_copy_semantics);
  tcase_add_test(tc, test_device_context_round_trip);
  tcase_add_test(tc, test_meta_planes);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(vk);
