// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device_context.hpp"

#include <gst/base/gstbasetransform.h>
#include <gst/ef/gstefvkimage.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

GST_DEBUG_CATEGORY_EXTERN(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

namespace ef::gst {

namespace {

constexpr const char *kSerialField = "efvkbridge-device";

uint64_t serial_of(GstContext *context) {
  guint64 serial = 0;
  if (!gst_structure_get_uint64(gst_context_get_structure(context), kSerialField, &serial))
    return 0;
  return serial;
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

std::optional<DeviceUuid> parse_device_uuid(const char *text) {
  if (!text)
    return std::nullopt;
  // 32 hex digits, or the 8-4-4-4-12 form vulkaninfo prints.
  std::string digits(text);
  if (digits.size() == 36 && digits[8] == '-' && digits[13] == '-' && digits[18] == '-' &&
      digits[23] == '-')
    digits = digits.substr(0, 8) + digits.substr(9, 4) + digits.substr(14, 4) +
             digits.substr(19, 4) + digits.substr(24);
  if (digits.size() != 32 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return g_ascii_isxdigit(c); }))
    return std::nullopt;
  DeviceUuid uuid;
  for (size_t i = 0; i < uuid.size(); ++i)
    uuid[i] =
        uint8_t(g_ascii_xdigit_value(digits[2 * i]) << 4 | g_ascii_xdigit_value(digits[2 * i + 1]));
  return uuid;
}

bool validation_requested() {
  const char *validate = g_getenv("EF_VK_VALIDATION");
  return validate && std::strcmp(validate, "0") != 0;
}

// A context set on the element names the device the application wants: one
// that cannot be used is an error. An answer to the bridge's own request
// (a neighbour's, or a pipeline's that remembered it from an earlier run)
// whose device is gone is skipped, and the search goes on.
ElementVkDevice::Adopted ElementVkDevice::adopt(GstElement *element, GstContext *context,
                                                bool answer) {
  auto device = device_from_context(context);
  if (!device) {
    if (answer && device.error().code == ESTALE) {
      GST_INFO_OBJECT(element, "skipping an ef.vulkan.device context: %s",
                      device.error().message.c_str());
      return Adopted::Skipped;
    }
    GST_ELEMENT_ERROR(
        element, RESOURCE, SETTINGS,
        ("The ef.vulkan.device context cannot be used: %s", device.error().message.c_str()),
        (nullptr));
    return Adopted::Refused;
  }
  std::lock_guard l(lock_);
  device_ = *device;
  GST_INFO_OBJECT(element, "using the Vulkan device \"%s\" of a context", device_->name().c_str());
  return Adopted::Yes;
}

// The context of the element's type in its list (set by the application,
// a bin, or an answer to NEED_CONTEXT), as gst_element_get_context() has it.
ElementVkDevice::Adopted ElementVkDevice::adopt_listed(GstElement *element, bool answer) {
  GstContext *context = gst_element_get_context(element, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  if (!context)
    return Adopted::Skipped;
  Adopted adopted = adopt(element, context, answer);
  gst_context_unref(context);
  if (adopted == Adopted::Skipped)
    forget_own_device_contexts(element);
  return adopted;
}

ElementVkDevice::Adopted ElementVkDevice::query_neighbours(GstElement *element,
                                                           GstPadDirection direction) {
  GstQuery *query = gst_query_new_context(GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  auto *trans = GST_BASE_TRANSFORM(element);
  GstPad *pad = direction == GST_PAD_SRC ? GST_BASE_TRANSFORM_SRC_PAD(trans)
                                         : GST_BASE_TRANSFORM_SINK_PAD(trans);
  Adopted adopted = Adopted::Skipped;
  if (gst_pad_peer_query(pad, query)) {
    GstContext *context = nullptr;
    gst_query_parse_context(query, &context);
    if (context)
      adopted = adopt(element, context, true);
  }
  gst_query_unref(query);
  return adopted;
}

std::shared_ptr<vk::Device> ElementVkDevice::make_own(GstElement *element,
                                                      const vk::DeviceChoice &choice) {
  auto device = vk::Device::create(choice);
  if (!device) {
    GST_ELEMENT_ERROR(element, RESOURCE, NOT_FOUND,
                      ("No usable Vulkan device: %s", device.error().message.c_str()), (nullptr));
    return nullptr;
  }
  {
    std::lock_guard l(lock_);
    device_ = *device;
  }
  GST_INFO_OBJECT(element, "made its own Vulkan device \"%s\"", (*device)->name().c_str());
  GstContext *context = device_context_new(**device);
  gst_element_set_context(element, context);
  gst_element_post_message(element, gst_message_new_have_context(GST_OBJECT(element), context));
  return *device;
}

std::shared_ptr<vk::Device> ElementVkDevice::ensure(GstElement *element,
                                                    const vk::DeviceChoice &choice) {
  if (auto known = device())
    return known;
  Adopted a = adopt_listed(element, false);
  if (a == Adopted::Skipped)
    a = query_neighbours(element, GST_PAD_SRC);
  if (a == Adopted::Skipped)
    a = query_neighbours(element, GST_PAD_SINK);
  if (a == Adopted::Skipped) {
    gst_element_post_message(element, gst_message_new_need_context(
                                          GST_OBJECT(element), GST_EF_VULKAN_DEVICE_CONTEXT_TYPE));
    a = adopt_listed(element, true);
  }
  if (a == Adopted::Skipped)
    return make_own(element, choice);
  return a == Adopted::Yes ? device() : nullptr;
}

bool ElementVkDevice::handle_query(GstQuery *query) const {
  const gchar *type = nullptr;
  gst_query_parse_context_type(query, &type);
  if (!type || std::strcmp(type, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE) != 0)
    return false;
  auto known = device();
  if (!known)
    return false;
  GstContext *context = device_context_new(*known);
  gst_query_set_context(query, context);
  gst_context_unref(context);
  return true;
}

std::shared_ptr<vk::Device> ElementVkDevice::device() const {
  std::lock_guard l(lock_);
  return device_;
}

void ElementVkDevice::reset(GstElement *element) {
  std::shared_ptr<vk::Device> dropped;
  {
    std::lock_guard l(lock_);
    dropped = std::move(device_);
  }
  // The device may go with it: so must the element's context naming it.
  forget_own_device_contexts(element);
}

}  // namespace ef::gst
