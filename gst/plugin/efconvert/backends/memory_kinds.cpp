// SPDX-License-Identifier: LGPL-2.1-or-later
#include "memory_kinds.hpp"

namespace ef::gst {

FrameMemory memory_in(GstCapsFeatures *f) {
  for (const MemoryKind &kind : kMemoryKinds)
    if (kind.memory != FrameMemory::System && f && gst_caps_features_contains(f, kind.feature))
      return kind.memory;
  return FrameMemory::System;
}

FrameMemory memory_of(GstCaps *caps) {
  return memory_in(gst_caps_get_features(caps, 0));
}

}  // namespace ef::gst
