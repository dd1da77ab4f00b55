// SPDX-License-Identifier: LGPL-2.1-or-later
#include "slot_gate.hpp"

#include <atomic>
#include <chrono>

#include "ef/ef.h"
#include "status.hpp"

using namespace ef;
using ef::capi::fail;
using ef::capi::succeed;

extern "C" {

int ef_slot_gate_new(uint64_t initial, EfSlotGate **out_gate) {
  EF_CAPI_REQUIRE(out_gate, "ef_slot_gate_new");
  *out_gate = new EfSlotGate{std::make_shared<SlotGate>(initial), {1}};
  return succeed();
}

EfSlotGate *ef_slot_gate_ref(EfSlotGate *gate) {
  if (gate)
    gate->refs.fetch_add(1, std::memory_order_relaxed);
  return gate;
}

void ef_slot_gate_unref(EfSlotGate *gate) {
  if (gate && gate->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete gate;
}

int ef_slot_gate_arm(EfSlotGate *gate, uint64_t value) {
  EF_CAPI_REQUIRE(gate, "ef_slot_gate_arm");
  gate->gate->store(value);
  return succeed();
}

int ef_slot_gate_value(const EfSlotGate *gate, uint64_t *out_value) {
  EF_CAPI_REQUIRE(gate, "ef_slot_gate_value");
  EF_CAPI_REQUIRE(out_value, "ef_slot_gate_value");
  *out_value = gate->gate->load();
  return succeed();
}

int ef_slot_gate_wait(const EfSlotGate *gate, uint64_t expected, uint64_t timeout_ns) {
  EF_CAPI_REQUIRE(gate, "ef_slot_gate_wait");
  if (auto released = gate->gate->wait(expected, std::chrono::nanoseconds(timeout_ns)); !released)
    return fail(released.error());
  return succeed();
}

struct EfSlotRing {
  SlotRing ring;
};

int ef_slot_ring_new(uint32_t slots, EfSlotRing **out_ring) {
  EF_CAPI_REQUIRE(out_ring, "ef_slot_ring_new");
  if (slots == 0)
    return fail(EINVAL, "ef_slot_ring_new: a ring needs at least one slot");
  *out_ring = new EfSlotRing{SlotRing(slots)};
  return succeed();
}

void ef_slot_ring_free(EfSlotRing *ring) {
  delete ring;
}

int ef_slot_ring_acquire(EfSlotRing *ring, uint32_t slot, uint64_t timeout_ns,
                         EfSlotGate **out_gate, uint64_t *out_value) {
  EF_CAPI_REQUIRE(ring, "ef_slot_ring_acquire");
  EF_CAPI_REQUIRE(out_gate, "ef_slot_ring_acquire");
  EF_CAPI_REQUIRE(out_value, "ef_slot_ring_acquire");
  auto release = ring->ring.acquire(slot, std::chrono::nanoseconds(timeout_ns));
  if (!release)
    return fail(release.error());
  *out_gate = new EfSlotGate{release->gate(), {1}};
  *out_value = release->value();
  return succeed();
}

}  // extern "C"
