// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge's Vulkan device, found or made the way GstContext users do:
// a context already set on the element, the neighbours (context query), the
// application (NEED_CONTEXT, answered by a bus sync handler or a bin), else
// a device of its own, announced with HAVE_CONTEXT and answered to context
// queries. Shaped like common/gl_context (an element's GL context).
//
// The "ef.vulkan.device" context of a device the bridge made itself names
// that device by its serial too, so that an element answered with it (by a
// neighbour, or by a pipeline that remembered it from an earlier run)
// shares the very device while it lives and recognises it once it is gone.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ef/result.hpp"
#include "vk/device.hpp"

namespace ef::gst {

class ElementVkDevice {
 public:
  // The device, found or made (`choice`: which one to open when the bridge
  // makes its own). nullptr when there is none, with an error on the bus.
  // The contexts are read here, at every start, not in set_context: a bin
  // calls that under its lock.
  std::shared_ptr<vk::Device> ensure(GstElement *element, const vk::DeviceChoice &choice);
  // Answers a GST_QUERY_CONTEXT for ef.vulkan.device with the device in
  // use; false otherwise.
  bool handle_query(GstQuery *query) const;
  // The device in use (nullptr before ensure()), from any thread.
  std::shared_ptr<vk::Device> device() const;
  // Drops the device, and every own-device context from `element`'s list:
  // they are valid for one run only, and must not be found by the next one.
  void reset(GstElement *element);

 private:
  enum class Adopted { Yes, Skipped, Refused };
  Adopted adopt(GstElement *element, GstContext *context, bool answer);
  Adopted adopt_listed(GstElement *element, bool answer);
  Adopted query_neighbours(GstElement *element, GstPadDirection direction);
  std::shared_ptr<vk::Device> make_own(GstElement *element, const vk::DeviceChoice &choice);

  mutable std::mutex lock_;
  std::shared_ptr<vk::Device> device_;
};

GstContext *device_context_new(const vk::Device &device);

// The device a context names: a bridge's own device is shared (ESTALE once
// it was destroyed); an application's is borrowed, its handles checked.
Result<std::shared_ptr<vk::Device>> device_from_context(GstContext *context);

// The device-uuid property's text: 32 hex digits of the device UUID, or the
// 8-4-4-4-12 form with dashes (vulkaninfo's); nullopt for anything else.
// (vk::device_uuid_text() writes it.)
std::optional<DeviceUuid> parse_device_uuid(const char *text);

// EF_VK_VALIDATION=1 (anything but 0) puts the Khronos validation layer on
// the bridge's own device.
bool validation_requested();

}  // namespace ef::gst
