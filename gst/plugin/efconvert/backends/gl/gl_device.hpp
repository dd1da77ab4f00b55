// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL display and context of an efconvert (common/gl_context), as the
// device its GL-using backends need (device.hpp): shared with the pipeline
// (GstContext queries and set_context), found early at state changes
// (gl_sharing), and the pools of GL-memory outputs, textures and buffers.
#pragma once

#include "common/gl_context.hpp"
#include "efconvert/backends/device.hpp"

namespace ef::gst {

class GlDevice final : public Device {
 public:
  ElementGlContext &context() { return gl_; }

  void set_context(GstElement *element, GstContext *context) override;
  bool answer_context_query(GstElement *element, GstQuery *query) override;
  void change_state(GstElement *element, GstStateChange transition, const BackendSettings &settings,
                    DeviceNeed need) override;
  Memories memories() const override;
  gboolean decide_allocation(GstElement *element, GstQuery *query, GstCaps *caps,
                             const GstVideoInfo *image, gsize size) override;

 private:
  ElementGlContext gl_;
};

const DeviceType &gl_device_type();
// The element's GL device, among its devices.
GlDevice &gl_device(Devices &devices);

}  // namespace ef::gst
