// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_context.hpp"

#include <gst/ef/gstefvkimage.h>

#include <cerrno>

namespace ef::gst {

namespace {

constexpr const char *kSerialField = "efvkbridge-device";

uint64_t serial_of(GstContext *context) {
  guint64 serial = 0;
  if (!gst_structure_get_uint64(gst_context_get_structure(context), kSerialField, &serial))
    return 0;
  return serial;
}

}  // namespace

GstContext *device_context_new(const vk::Device &device) {
  GstEfVulkanDevice shared = device.shared();
  GstContext *context = gst_ef_vulkan_device_context_new(&shared);
  if (context && device.serial())
    gst_structure_set(gst_context_writable_structure(context), kSerialField, G_TYPE_UINT64,
                      guint64(device.serial()), nullptr);
  return context;
}

Result<std::shared_ptr<vk::Device>> device_from_context(GstContext *context) {
  GstEfVulkanDevice shared;
  if (!gst_ef_vulkan_device_context_get(context, &shared))
    return Error{EINVAL, "the context is not a complete ef.vulkan.device context"};
  if (const uint64_t serial = serial_of(context)) {
    if (auto device = vk::Device::find(serial))
      return device;
    return Error{ESTALE,
                 "its Vulkan device was made by an efvkbridge and destroyed when that element "
                 "stopped"};
  }
  return vk::Device::borrow(shared);
}

void forget_own_device_contexts(GstElement *element) {
  GST_OBJECT_LOCK(element);
  GList *l = element->contexts;
  while (l) {
    GList *next = l->next;
    auto *context = static_cast<GstContext *>(l->data);
    if (gst_context_has_context_type(context, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE) &&
        serial_of(context)) {
      gst_context_unref(context);
      element->contexts = g_list_delete_link(element->contexts, l);
    }
    l = next;
  }
  GST_OBJECT_UNLOCK(element);
}

}  // namespace ef::gst
