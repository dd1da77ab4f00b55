// SPDX-License-Identifier: LGPL-2.1-or-later
// A device context that backends need and the element holds for them (a
// GL display and context): found or made on demand, shared with the
// pipeline through GstContext, and the pools of the memory kinds that live
// on it. The element calls these hooks for every device its backends'
// registry entries name, never knowing which they are; a device no entry
// built in names is not there.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <memory>
#include <vector>

#include "backend_settings.hpp"
#include "memory_kinds.hpp"

namespace ef::gst {

// How much the settings call for a device: not at all (no backend the
// `backend` setting allows needs it), maybe (auto, or the backend asked
// for needs it for some outputs only), surely (the backend asked for needs
// it for every frame).
enum class DeviceNeed { None, Maybe, Surely };

class Device {
 public:
  virtual ~Device() = default;
  // GstElement::set_context.
  virtual void set_context(GstElement *, GstContext *) {}
  // GST_QUERY_CONTEXT: true where answered.
  virtual bool answer_context_query(GstElement *, GstQuery *) { return false; }
  // Before the parent class's change_state.
  virtual void change_state(GstElement *, GstStateChange, const BackendSettings &, DeviceNeed) {}
  // The memory kinds whose output pools this device makes.
  virtual Memories memories() const { return 0; }
  // decide_allocation for outputs in one of memories(): `image` the frames'
  // info (null for tensors), else tensors of `size` bytes. FALSE with an
  // error posted.
  virtual gboolean decide_allocation(GstElement *, GstQuery *, GstCaps *,
                                     const GstVideoInfo * /*image*/, gsize /*size*/) {
    return FALSE;
  }
};

// A kind of device, as registry entries name it.
struct DeviceType {
  const char *name;
  std::unique_ptr<Device> (*make)();
};

// The element's devices: one of each type its backends' entries need
// (backend_device_types()).
class Devices {
 public:
  explicit Devices(const std::vector<const DeviceType *> &types);
  // The device of `type` (a type some entry names).
  Device &of(const DeviceType &type);
  // The device whose pools hold outputs in `m`, or null.
  Device *owner_of(FrameMemory m);
  template <typename F>
  void each(F f) {
    for (Held &held : held_)
      f(*held.type, *held.device);
  }

 private:
  struct Held {
    const DeviceType *type;
    std::unique_ptr<Device> device;
  };
  std::vector<Held> held_;
};

}  // namespace ef::gst
