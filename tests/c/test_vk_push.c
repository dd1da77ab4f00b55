/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C ABI for pushing an application's VkImage, from C: a VkImage made and
 * cleared with the Vulkan C API, wrapped with ef_vk_image_wrap and an
 * EfClientState keep-alive, its slot gate from an EfSlotRing, pushed through
 * appsrc ! efvkbridge ! appsink on the application's device (shared through
 * the ef.vulkan.device context). Checks the pixels, that the gate was armed
 * once the bridge's copy retired, and that the keep-alive was released
 * exactly once. Exit 77 (SKIP) without a Vulkan device. */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/ef/gstef.h>
#include <gst/gst.h>
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define W 64
#define H 16

static int retains, releases;
static void on_retain(const void *ctx) {
  (void)ctx;
  ++retains;
}
static void on_release(const void *ctx) {
  (void)ctx;
  ++releases;
}

#define CHECK(cond, ...)                     \
  do {                                       \
    if (!(cond)) {                           \
      fprintf(stderr, "FAIL: " __VA_ARGS__); \
      fprintf(stderr, "\n");                 \
      return 1;                              \
    }                                        \
  } while (0)

typedef struct {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint8_t uuid[16];
} Vk;

static int make_device(Vk *vk) {
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ici.pApplicationInfo = &app;
  if (vkCreateInstance(&ici, NULL, &vk->instance) != VK_SUCCESS)
    return 77;
  uint32_t n = 1;
  if (vkEnumeratePhysicalDevices(vk->instance, &n, &vk->physical) < 0 || n == 0)
    return 77;
  VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
  vkGetPhysicalDeviceProperties2(vk->physical, &props);
  memcpy(vk->uuid, id.deviceUUID, 16);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qci.queueFamilyIndex = 0;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  if (vkCreateDevice(vk->physical, &dci, NULL, &vk->device) != VK_SUCCESS)
    return 1;
  vkGetDeviceQueue(vk->device, 0, 0, &vk->queue);
  return 0;
}

/* An OPTIMAL RGBA image cleared to `rgba`, left in GENERAL layout, with the
 * work complete before it is pushed. */
static int make_image(Vk *vk, const float rgba[4], VkImage *image, VkDeviceMemory *memory) {
  VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = VK_FORMAT_R8G8B8A8_UNORM;
  info.extent.width = W;
  info.extent.height = H;
  info.extent.depth = 1;
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  CHECK(vkCreateImage(vk->device, &info, NULL, image) == VK_SUCCESS, "vkCreateImage");
  VkMemoryRequirements req;
  vkGetImageMemoryRequirements(vk->device, *image, &req);
  VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = (uint32_t)__builtin_ctz(req.memoryTypeBits);
  CHECK(vkAllocateMemory(vk->device, &alloc, NULL, memory) == VK_SUCCESS, "vkAllocateMemory");
  CHECK(vkBindImageMemory(vk->device, *image, *memory, 0) == VK_SUCCESS, "vkBindImageMemory");

  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool;
  CHECK(vkCreateCommandPool(vk->device, &pci, NULL, &pool) == VK_SUCCESS, "command pool");
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = pool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkCommandBuffer cmd;
  CHECK(vkAllocateCommandBuffers(vk->device, &cai, &cmd) == VK_SUCCESS, "command buffer");
  VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(cmd, &begin);
  VkImageMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  barrier.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  barrier.newLayout = VK_IMAGE_LAYOUT_GENERAL;
  barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
  barrier.image = *image;
  barrier.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
  barrier.subresourceRange.levelCount = 1;
  barrier.subresourceRange.layerCount = 1;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                       NULL, 0, NULL, 1, &barrier);
  VkClearColorValue color;
  memcpy(color.float32, rgba, sizeof color.float32);
  vkCmdClearColorImage(cmd, *image, VK_IMAGE_LAYOUT_GENERAL, &color, 1, &barrier.subresourceRange);
  vkEndCommandBuffer(cmd);
  VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  CHECK(vkQueueSubmit(vk->queue, 1, &submit, VK_NULL_HANDLE) == VK_SUCCESS, "submit");
  vkQueueWaitIdle(vk->queue);
  vkDestroyCommandPool(vk->device, pool, NULL);
  return 0;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Vk vk = {0};
  int rc = make_device(&vk);
  if (rc == 77) {
    printf("SKIP: no Vulkan device\n");
    return 77;
  }
  CHECK(rc == 0, "vkCreateDevice");
  const float red[4] = {1.0f, 0.0f, 0.0f, 1.0f};
  VkImage handle;
  VkDeviceMemory memory;
  CHECK(make_image(&vk, red, &handle, &memory) == 0, "image");

  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time ! efvkbridge name=bridge ! appsink name=sink", NULL);
  CHECK(pipeline != NULL, "pipeline");
  GstEfVulkanDevice shared = {vk.instance, vk.physical, vk.device, 0, 0, {0}, NULL};
  memcpy(shared.device_uuid, vk.uuid, 16);
  GstContext *context = gst_ef_vulkan_device_context_new(&shared);
  gst_element_set_context(pipeline, context);
  gst_context_unref(context);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  GstCaps *caps = gst_caps_from_string("video/x-raw(" GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE
                                       "),format=RGBA,width=64,height=16,framerate=30/1");
  gst_app_src_set_caps(GST_APP_SRC(src), caps);
  gst_caps_unref(caps);
  CHECK(gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE, "play");

  /* NULL callbacks are refused. */
  EfClientState bad = {&retains, on_retain, NULL};
  EfVkImage *image = NULL;
  CHECK(ef_vk_image_wrap((uint64_t)(uintptr_t)handle, vk.device, vk.instance, vk.physical, vk.uuid,
                         0, &bad, &image) == EINVAL,
        "NULL release accepted");
  CHECK(retains == 0, "retain called for a refused wrap");

  EfClientState keep = {&retains, on_retain, on_release};
  CHECK(ef_vk_image_wrap((uint64_t)(uintptr_t)handle, vk.device, vk.instance, vk.physical, vk.uuid,
                         0, &keep, &image) == 0,
        "wrap: %s", ef_last_error());
  CHECK(ef_vk_image_set_dimensions(image, W, H) == 0, "dimensions");
  CHECK(ef_vk_image_set_format(image, EF_PIXEL_FORMAT_RGBA8) == 0, "format");
  EfSlotRing *ring = NULL;
  EfSlotGate *gate = NULL;
  uint64_t value = 0;
  CHECK(ef_slot_ring_new(1, &ring) == 0, "ring");
  CHECK(ef_slot_ring_acquire(ring, 0, 1000000000ull, &gate, &value) == 0, "acquire");
  CHECK(ef_vk_image_set_acquire_release(image, gate, value) == 0, "gate");
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, gst_ef_vk_image_memory_new(image, W * H * 4));
  ef_vk_image_free(image);
  CHECK(gst_app_src_push_buffer(GST_APP_SRC(src), buffer) == GST_FLOW_OK, "push");

  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
  CHECK(sample != NULL, "no frame came out");
  GstMapInfo map;
  GstBuffer *out = gst_sample_get_buffer(sample);
  CHECK(gst_buffer_map(out, &map, GST_MAP_READ), "map");
  for (int i = 0; i < W * H; ++i)
    CHECK(map.data[4 * i] == 255 && map.data[4 * i + 1] == 0 && map.data[4 * i + 3] == 255,
          "pixel %d is %u,%u,%u,%u", i, map.data[4 * i], map.data[4 * i + 1], map.data[4 * i + 2],
          map.data[4 * i + 3]);
  gst_buffer_unmap(out, &map);
  gst_sample_unref(sample);
  /* The bridge's copy retired: the slot is free again, at once. */
  CHECK(ef_slot_gate_wait(gate, value, 0) == 0, "gate not armed: %s", ef_last_error());
  ef_slot_gate_unref(gate);

  gst_app_src_end_of_stream(GST_APP_SRC(src));
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  CHECK(retains == 1 && releases == 1, "retains %d, releases %d (want 1, 1)", retains, releases);
  ef_slot_ring_free(ring);
  vkDestroyImage(vk.device, handle, NULL);
  vkFreeMemory(vk.device, memory, NULL);
  vkDestroyDevice(vk.device, NULL);
  vkDestroyInstance(vk.instance, NULL);
  printf("1 passed, 0 failed\n");
  return 0;
}
