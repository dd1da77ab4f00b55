// SPDX-License-Identifier: LGPL-2.1-or-later
#include "device.hpp"

#include "backend_registry.hpp"

namespace ef::gst {

Devices::Devices() {
  for (const BackendEntry *e : backend_entries()) {
    if (!e->device)
      continue;
    bool held = false;
    for (const Held &h : held_)
      held = held || h.type == e->device;
    if (!held)
      held_.push_back({e->device, e->device->make()});
  }
}

Device &Devices::of(const DeviceType &type) {
  for (Held &h : held_)
    if (h.type == &type)
      return *h.device;
  // Only the entries that name a type ask for it: made in the constructor.
  g_error("efconvert: no device %s", type.name);
}

Device *Devices::owner_of(FrameMemory m) {
  for (Held &h : held_)
    if (h.device->memories() & memory_bit(m))
      return h.device.get();
  return nullptr;
}

}  // namespace ef::gst
