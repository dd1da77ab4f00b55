// SPDX-License-Identifier: LGPL-2.1-or-later
// The C handle of a slot gate: a counted reference to the shared SlotGate.
#pragma once

#include <atomic>
#include <memory>

#include "ef/slot_release.hpp"

struct EfSlotGate {
  std::shared_ptr<ef::SlotGate> gate;
  std::atomic<int> refs;
};
