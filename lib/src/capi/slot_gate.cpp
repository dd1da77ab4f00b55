// SPDX-License-Identifier: LGPL-2.1-or-later
#include "slot_gate.hpp"

#include <atomic>
#include <chrono>

#include "ef/ef.h"
#include "guard.hpp"
#include "status.hpp"
#include "timeout.hpp"

using namespace ef;
using ef::capi::fail;
using ef::capi::guarded;
using ef::capi::succeed;
using ef::capi::timeout_from_c;

extern "C" {

int ef_slot_gate_new(uint64_t initial, EfSlotGate **out_gate) {
  return guarded("ef_slot_gate_new", [&] {
    EF_CAPI_REQUIRE(out_gate, "ef_slot_gate_new");
    *out_gate = new EfSlotGate{std::make_shared<SlotGate>(initial), {1}};
    return succeed();
  });
}

EfSlotGate *ef_slot_gate_ref(EfSlotGate *gate) {
  return guarded("ef_slot_gate_ref", [&] {
    if (gate)
      gate->refs.fetch_add(1, std::memory_order_relaxed);
    return gate;
  });
}

void ef_slot_gate_unref(EfSlotGate *gate) {
  guarded("ef_slot_gate_unref", [&] {
    if (gate && gate->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete gate;
  });
}

int ef_slot_gate_arm(EfSlotGate *gate, uint64_t value) {
  return guarded("ef_slot_gate_arm", [&] {
    EF_CAPI_REQUIRE(gate, "ef_slot_gate_arm");
    gate->gate->store(value);
    return succeed();
  });
}

int ef_slot_gate_value(const EfSlotGate *gate, uint64_t *out_value) {
  return guarded("ef_slot_gate_value", [&] {
    EF_CAPI_REQUIRE(gate, "ef_slot_gate_value");
    EF_CAPI_REQUIRE(out_value, "ef_slot_gate_value");
    *out_value = gate->gate->load();
    return succeed();
  });
}

int ef_slot_gate_wait(const EfSlotGate *gate, uint64_t expected, uint64_t timeout_ns) {
  return guarded("ef_slot_gate_wait", [&] {
    EF_CAPI_REQUIRE(gate, "ef_slot_gate_wait");
    if (auto released = gate->gate->wait(expected, timeout_from_c(timeout_ns)); !released)
      return fail(released.error());
    return succeed();
  });
}

struct EfSlotRing {
  SlotRing ring;
};

int ef_slot_ring_new(uint32_t slots, EfSlotRing **out_ring) {
  return guarded("ef_slot_ring_new", [&] {
    EF_CAPI_REQUIRE(out_ring, "ef_slot_ring_new");
    if (slots == 0)
      return fail(EINVAL, "ef_slot_ring_new: a ring needs at least one slot");
    if (slots > EF_SLOT_RING_MAX_SLOTS)
      return fail(EINVAL, "ef_slot_ring_new: " + std::to_string(slots) +
                              " slots is more than EF_SLOT_RING_MAX_SLOTS (" +
                              std::to_string(EF_SLOT_RING_MAX_SLOTS) + ")");
    *out_ring = new EfSlotRing{SlotRing(slots)};
    return succeed();
  });
}

void ef_slot_ring_free(EfSlotRing *ring) {
  guarded("ef_slot_ring_free", [&] { delete ring; });
}

int ef_slot_ring_acquire(EfSlotRing *ring, uint32_t slot, uint64_t timeout_ns,
                         EfSlotGate **out_gate, uint64_t *out_value) {
  return guarded("ef_slot_ring_acquire", [&] {
    EF_CAPI_REQUIRE(ring, "ef_slot_ring_acquire");
    EF_CAPI_REQUIRE(out_gate, "ef_slot_ring_acquire");
    EF_CAPI_REQUIRE(out_value, "ef_slot_ring_acquire");
    // The handle is allocated before the use starts: a use whose gate never
    // reached the caller could never be armed, and the slot would be lost.
    auto handle = std::make_unique<EfSlotGate>();
    auto release = ring->ring.acquire(slot, timeout_from_c(timeout_ns));
    if (!release)
      return fail(release.error());
    handle->gate = release->gate();
    handle->refs.store(1, std::memory_order_relaxed);
    *out_gate = handle.release();
    *out_value = release->value();
    return succeed();
  });
}

}  // extern "C"
