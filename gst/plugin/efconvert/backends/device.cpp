// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device.hpp"

namespace ef::gst {

Devices::Devices(const std::vector<const DeviceType *> &types) {
  for (const DeviceType *type : types)
    held_.push_back({type, type->make()});
}

Device &Devices::of(const DeviceType &type) {
  for (Held &h : held_)
    if (h.type == &type)
      return *h.device;
  // Only the entries that name a type ask for it: made by the constructor.
  g_error("efconvert: no device %s", type.name);
}

Device *Devices::owner_of(FrameMemory m) {
  for (Held &h : held_)
    if (h.device->memories() & memory_bit(m))
      return h.device.get();
  return nullptr;
}

}  // namespace ef::gst
