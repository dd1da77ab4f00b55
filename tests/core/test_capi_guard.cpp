// SPDX-License-Identifier: LGPL-2.1-or-later
// No C++ exception crosses ef.h. The guard itself is checked with every kind
// of exception; then every entry point that allocates runs with its first,
// second, ... allocation failing (operator new is replaced in this program, and
// the library's allocations come here too), and must answer 0 or ENOMEM with a
// message, leave nothing half done, and never let std::bad_alloc escape.
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "check_main.h"
#include "ef/ef.h"
#include "fd_helpers.hpp"
#include "guard.hpp"

namespace {

// Allocations left before the injected failure; -1: none is injected.
std::atomic<long> allocations_left{-1};
std::atomic<bool> injected{false};

void *allocate(std::size_t n) {
  long left = allocations_left.load(std::memory_order_relaxed);
  while (left >= 0 && !allocations_left.compare_exchange_weak(left, left - 1)) {
  }
  if (left == 0) {
    injected = true;
    throw std::bad_alloc();
  }
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}

}  // namespace

void *operator new(std::size_t n) {
  return allocate(n);
}
void *operator new[](std::size_t n) {
  return allocate(n);
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete[](void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept {
  std::free(p);
}

namespace {

using ef::capi::guarded;

START_TEST(test_guard_maps_every_exception) {
  ck_assert_int_eq(guarded("f", []() -> int { throw std::bad_alloc(); }), ENOMEM);
  ck_assert_str_eq(ef_last_error(), "f: out of memory");
  ck_assert_int_eq(guarded("f", []() -> int { throw std::length_error("vector too long"); }),
                   ENOMEM);
  ck_assert_str_eq(ef_last_error(), "f: vector too long");
  ck_assert_int_eq(
      guarded("f",
              []() -> int { throw std::system_error(EAGAIN, std::generic_category(), "thread"); }),
      EAGAIN);
  ck_assert_ptr_nonnull(strstr(ef_last_error(), "f: thread"));
  ck_assert_int_eq(guarded("f", []() -> int { throw std::runtime_error("broken"); }), EIO);
  ck_assert_str_eq(ef_last_error(), "f: broken");
  ck_assert_int_eq(guarded("f", []() -> int { throw 42; }), EIO);
  ck_assert_ptr_nonnull(strstr(ef_last_error(), "unknown exception"));
  // Pointer and void entry points: NULL, nothing, and the message recorded.
  ck_assert_ptr_null(guarded("g", []() -> EfSlotGate * { throw std::bad_alloc(); }));
  ck_assert_str_eq(ef_last_error(), "g: out of memory");
  guarded("h", []() { throw std::bad_alloc(); });
  ck_assert_str_eq(ef_last_error(), "h: out of memory");
  ck_assert_int_eq(guarded("f", [] { return 7; }), 7);
}
END_TEST

// Even the message cannot be allocated: a fixed text still says why.
START_TEST(test_guard_without_memory_for_the_message) {
  int rc = guarded("f", []() -> int {
    std::runtime_error broken("a message too long to be stored inline");
    allocations_left = 0;  // the next allocation, the message's, fails
    throw broken;
  });
  allocations_left = -1;
  ck_assert_int_eq(rc, EIO);
  ck_assert_str_eq(ef_last_error(), "internal error (no memory for the message)");
}
END_TEST

struct Case {
  const char *name;
  std::function<void()> setup;     // before each attempt, allocations not failing
  std::function<int()> call;       // the entry point, with one allocation failing
  std::function<void(int)> after;  // checks and frees, given call's result
};

// Runs `c` with allocation 0, 1, 2, ... failing until a run makes no
// allocation fail. `expected` is what the call answers with memory to spare.
void sweep(const Case &c, int expected) {
  for (long n = 0;; ++n) {
    ck_assert_msg(n < 10000, "%s: still allocating after 10000 allocations", c.name);
    if (c.setup)
      c.setup();
    injected = false;
    allocations_left = n;
    int rc = -1;
    try {
      rc = c.call();
    } catch (...) {
      allocations_left = -1;
      ck_abort_msg("%s: a C++ exception escaped with allocation %ld failing", c.name, n);
    }
    allocations_left = -1;
    if (!injected) {
      ck_assert_msg(rc == expected, "%s: %d, not %d: %s", c.name, rc, expected, ef_last_error());
      c.after(rc);
      return;
    }
    ck_assert_msg(rc == ENOMEM || rc == expected, "%s with allocation %ld failing: %d (%s)", c.name,
                  n, rc, ef_last_error());
    if (rc != 0)
      ck_assert_msg(strlen(ef_last_error()) > 0, "%s: failed with no message", c.name);
    c.after(rc);
  }
}

int retains, releases;
void on_retain(const void *) {
  ++retains;
}
void on_release(const void *) {
  ++releases;
}

START_TEST(test_slot_entry_points_without_memory) {
  EfSlotGate *gate = nullptr;
  sweep({"ef_slot_gate_new", nullptr, [&] { return ef_slot_gate_new(3, &gate); },
         [&](int rc) {
           if (rc == 0)
             ef_slot_gate_unref(gate);
         }},
        0);

  EfSlotRing *ring = nullptr;
  sweep({"ef_slot_ring_new", nullptr, [&] { return ef_slot_ring_new(4, &ring); },
         [&](int rc) {
           if (rc == 0)
             ef_slot_ring_free(ring);
         }},
        0);

  // A failed acquire starts no use: the slot is still free afterwards.
  uint64_t value = 0;
  sweep({"ef_slot_ring_acquire", [&] { ck_assert_int_eq(ef_slot_ring_new(1, &ring), 0); },
         [&] { return ef_slot_ring_acquire(ring, 0, 0, &gate, &value); },
         [&](int rc) {
           if (rc != 0)
             ck_assert_msg(ef_slot_ring_acquire(ring, 0, 0, &gate, &value) == 0,
                           "a failed acquire left the slot in use: %s", ef_last_error());
           ck_assert_uint_eq(value, 1);
           ef_slot_gate_unref(gate);
           ef_slot_ring_free(ring);
         }},
        0);

  // A timeout's message needs memory too.
  ck_assert_int_eq(ef_slot_gate_new(0, &gate), 0);
  sweep({"ef_slot_gate_wait", nullptr, [&] { return ef_slot_gate_wait(gate, 5, 0); }, [](int) {}},
        ETIMEDOUT);
  sweep({"ef_slot_ring_new(0)", nullptr, [&] { return ef_slot_ring_new(0, &ring); }, [](int) {}},
        EINVAL);
  ef_slot_gate_unref(gate);
}
END_TEST

START_TEST(test_identity_entry_points_without_memory) {
  ef::test::ScopedFd memfd = ef::test::make_memfd("ef-nomem", 4096);
  uint32_t kind = 0;
  uint64_t id = 0;
  sweep({"ef_identity_from_fd(memfd)", nullptr,
         [&] { return ef_identity_from_fd(memfd.get(), &kind, &id); }, [](int) {}},
        0);
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  sweep({"ef_identity_from_fd(pipe)", nullptr,
         [&] { return ef_identity_from_fd(p[0], &kind, &id); }, [](int) {}},
        EINVAL);
  close(p[0]);
  close(p[1]);
  sweep({"ef_identity_derive", nullptr, [&] { return ef_identity_derive(99, 1, &id); }, [](int) {}},
        EINVAL);
  sweep({"ef_identity_from_host_ptr", nullptr,
         [&] { return ef_identity_from_host_ptr(nullptr, &id); }, [](int) {}},
        EINVAL);
}
END_TEST

START_TEST(test_vk_image_entry_points_without_memory) {
  EfClientState state = {&retains, on_retain, on_release};
  EfVkImage *img = nullptr;
  // retain and release stay paired whatever allocation fails.
  sweep(
      {"ef_vk_image_wrap", [] { retains = releases = 0; },
       [&] { return ef_vk_image_wrap(0x77, nullptr, nullptr, nullptr, nullptr, 0, &state, &img); },
       [&](int rc) {
         if (rc == 0) {
           ck_assert_int_eq(retains, 1);
           ck_assert_int_eq(releases, 0);
           ef_vk_image_free(img);
         }
         ck_assert_int_eq(retains, releases);
       }},
      0);

  ck_assert_int_eq(ef_vk_image_wrap(0x77, nullptr, nullptr, nullptr, nullptr, 0, &state, &img), 0);
  EfVkImage *copy = nullptr;
  sweep({"ef_vk_image_copy", nullptr, [&] { return ef_vk_image_copy(img, &copy); },
         [&](int rc) {
           if (rc == 0)
             ef_vk_image_free(copy);
         }},
        0);
  sweep({"ef_vk_image_set_dimensions(0, 0)", nullptr,
         [&] { return ef_vk_image_set_dimensions(img, 0, 0); }, [](int) {}},
        EINVAL);
  EfSlotGate *gate = nullptr, *stamped = nullptr;
  uint64_t value = 0;
  ck_assert_int_eq(ef_slot_gate_new(0, &gate), 0);
  sweep({"ef_vk_image_set_acquire_release", nullptr,
         [&] { return ef_vk_image_set_acquire_release(img, gate, 2); }, [](int) {}},
        0);
  sweep({"ef_vk_image_get_acquire_release", nullptr,
         [&] { return ef_vk_image_get_acquire_release(img, &stamped, &value); },
         [&](int rc) {
           if (rc == 0)
             ef_slot_gate_unref(stamped);
         }},
        0);
  // The first call starts the process's waiter thread.
  sweep({"ef_vk_image_release_after_fence", nullptr,
         [&] { return ef_vk_image_release_after_fence(img, nullptr, 1); }, [](int) {}},
        EINVAL);
  ef_slot_gate_unref(gate);
  ef_vk_image_free(img);
  ck_assert_int_eq(releases, retains);
}
END_TEST

Suite *guard_suite() {
  Suite *s = suite_create("capi_guard");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_guard_maps_every_exception);
  tcase_add_test(tc, test_guard_without_memory_for_the_message);
  tcase_add_test(tc, test_slot_entry_points_without_memory);
  tcase_add_test(tc, test_identity_entry_points_without_memory);
  tcase_add_test(tc, test_vk_image_entry_points_without_memory);
  suite_add_tcase(s, tc);
  return s;
}

}  // namespace

int main() {
  return ef::test::run_suite(guard_suite());
}
