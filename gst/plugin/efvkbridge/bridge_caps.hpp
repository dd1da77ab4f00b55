// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge's caps and pools: how caps map across the bridge in each
// direction, the formats and layouts it takes, the device's size limit, and
// the memfd pools it offers upstream and makes for its output.
#pragma once

#include <gst/gst.h>

#include "common/dma_drm_caps.hpp"
#include "common/size_limits.hpp"
#include "vk/device.hpp"

#define EF_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, GRAY8, NV12 }"

namespace ef::gst {

// The dma-buf layouts the bridge imports and makes.
const DrmSupport &drm_linear();

bool has_feature(GstCapsFeatures *f, const char *feature);

// GstBaseTransform::transform_caps before the device's size limit.
GstCaps *bridge_transform_caps(GstCaps *caps, GstPadDirection direction);

// The largest image side of the device: VkImages on both sides of the bridge.
SizeLimit vk_size_limit(const vk::Device &device);

// A pool of memfd-backed video buffers for `caps`, each a whole number of
// pages; nullptr when it cannot be configured.
GstBufferPool *fd_pool(GstCaps *caps, gsize size, guint min, guint max);

}  // namespace ef::gst
