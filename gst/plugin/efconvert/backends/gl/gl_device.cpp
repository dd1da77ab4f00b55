// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_device.hpp"

#include "gl_sharing.hpp"
#include "gl_output_pool.hpp"
#include "gl_tensor_pool.hpp"

namespace ef::gst {

static_assert(kMaxGlContextsSetting <= kMaxGlContextPool, "gl-contexts beyond the pool");

void GlDevice::set_context(GstElement *element, GstContext *context) {
  gl_.set_context(element, context);
}

bool GlDevice::answer_context_query(GstElement *element, GstQuery *query) {
  return gl_.handle_query(element, query);
}

void GlDevice::change_state(GstElement *element, GstStateChange transition,
                            const BackendSettings &settings, DeviceNeed need) {
  if (need != DeviceNeed::None)
    share_gl_early(element, gl_, transition, settings.gl_contexts, need == DeviceNeed::Surely);
}

Memories GlDevice::memories() const {
  return memory_bit(FrameMemory::Gl) | memory_bit(FrameMemory::GlBuffer);
}

// Textures for frames, buffer objects for tensors (which stay on the GPU).
gboolean GlDevice::decide_allocation(GstElement *element, GstQuery *query, GstCaps *caps,
                                     const GstVideoInfo *image, gsize size) {
  auto context = gl_.ensure(element);
  if (!context) {
    GST_ELEMENT_ERROR(element, RESOURCE, FAILED, ("%s", context.error().message.c_str()),
                      (nullptr));
    return FALSE;
  }
  if (!image)
    return decide_gl_tensor_pool(element, *context, query, caps, size);
  return decide_gl_output_pool(element, *context, query, caps, *image);
}

const DeviceType &gl_device_type() {
  static const DeviceType type{"GL", [] { return std::unique_ptr<Device>(new GlDevice); }};
  return type;
}

GlDevice &gl_device(Devices &devices) {
  return static_cast<GlDevice &>(devices.of(gl_device_type()));
}

}  // namespace ef::gst
