// SPDX-License-Identifier: LGPL-2.1-or-later
// The "ef.vulkan.device" GstContext as efvkbridge makes and takes it. A
// context of a device the bridge made itself names that device by its
// serial too, so that an element answered with it (by a neighbour, or by a
// pipeline that remembered it from an earlier run) shares the very device
// while it lives and recognises it once it is gone.
#pragma once

#include <gst/gst.h>

#include <memory>

#include "ef/result.hpp"
#include "vk/device.hpp"

namespace ef::gst {

GstContext *device_context_new(const vk::Device &device);

// The device a context names: a bridge's own device is shared (ESTALE once
// it was destroyed); an application's is borrowed, its handles checked.
Result<std::shared_ptr<vk::Device>> device_from_context(GstContext *context);

// Drops the contexts of the bridges' own devices from `element`'s list:
// they are valid for one run only, and must not be found by the next one.
void forget_own_device_contexts(GstElement *element);

}  // namespace ef::gst
