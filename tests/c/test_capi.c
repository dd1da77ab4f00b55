/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C ABI from C: every entry point with good and bad input. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "ef/ef.h"

static int retains, releases;
static void on_retain(const void *ctx) {
  (void)ctx;
  ++retains;
}
static void on_release(const void *ctx) {
  (void)ctx;
  ++releases;
}

#define ck_assert_failed_with(call, code, needle)                                                  \
  do {                                                                                             \
    ck_assert_int_eq((call), (code));                                                              \
    ck_assert_msg(strstr(ef_last_error(), (needle)) != NULL, "last error: '%s'", ef_last_error()); \
  } while (0)

START_TEST(test_identity_entry_points) {
  uint64_t id = 0;
  uint32_t kind = 99;
  ck_assert_int_eq(ef_identity_derive(EF_IDENTITY_KIND_VK_IMAGE, 0x42, &id), 0);
  ck_assert_uint_eq(id, 0x0800000000000042ull);
  ck_assert_str_eq(ef_last_error(), "");
  ck_assert_failed_with(ef_identity_derive(9, 1, &id), EINVAL, "not an IdentityKind");
  ck_assert_failed_with(ef_identity_derive(0xffffffffu, 1, &id), EINVAL, "not an IdentityKind");
  ck_assert_failed_with(ef_identity_derive(0, 1, NULL), EINVAL, "out_id is NULL");

  int fd = memfd_create("ef-capi", MFD_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, 4096), 0);
  ck_assert_int_eq(ef_identity_from_fd(fd, &kind, &id), 0);
  ck_assert_uint_eq(kind, EF_IDENTITY_KIND_DMA_BUF);
  uint64_t dup_id = 0;
  int copy = dup(fd);
  ck_assert_int_eq(ef_identity_from_fd(copy, &kind, &dup_id), 0);
  ck_assert_uint_eq(dup_id, id);
  close(copy);
  close(fd);
  ck_assert_failed_with(ef_identity_from_fd(fd, &kind, &id), EBADF, "fstat");
  ck_assert_failed_with(ef_identity_from_fd(-5, &kind, &id), EBADF, "not a file descriptor");
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  ck_assert_failed_with(ef_identity_from_fd(p[0], &kind, &id), EINVAL, "no buffer identity");
  close(p[0]);
  close(p[1]);
  ck_assert_failed_with(ef_identity_from_fd(0, NULL, &id), EINVAL, "out_kind is NULL");

  int x;
  ck_assert_int_eq(ef_identity_from_host_ptr(&x, &id), 0);
  ck_assert_failed_with(ef_identity_from_host_ptr(NULL, &id), EINVAL, "NULL");
  ck_assert_int_eq(ef_identity_from_gl_buffer(3, &id), 0);
  ck_assert_uint_eq(id, 0x0700000000000003ull);
  ck_assert_failed_with(ef_identity_from_gl_buffer(0, &id), EINVAL, "name 0");
  ck_assert_failed_with(ef_identity_from_gl_buffer(3, NULL), EINVAL, "NULL");
  ck_assert_int_eq(ef_identity_from_vk_image(5, &id), 0);
  ck_assert_failed_with(ef_identity_from_vk_image(0, &id), EINVAL, "VK_NULL_HANDLE");
}
END_TEST

/* Every id through the C ABI is (kind << 56) ^ key, the key computed here
 * from fstat or the raw value: a shm fd (kind 1), a memfd (kind 0), a host
 * pointer, a GL buffer and a VkImage of one value, each its own id. */
START_TEST(test_identity_ids_carry_kind) {
  uint32_t kind = 99;
  uint64_t id = 0;
  char name[64];
  snprintf(name, sizeof name, "/ef-capi-id-%d", (int)getpid());
  int shm = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  ck_assert_msg(shm >= 0, "shm_open: %s", strerror(errno));
  shm_unlink(name);
  ck_assert_int_eq(ftruncate(shm, 4096), 0);
  struct stat st;
  ck_assert_int_eq(fstat(shm, &st), 0);
  uint64_t key = ((uint64_t)st.st_dev << 32) ^ (uint64_t)st.st_ino;
  ck_assert_int_eq(ef_identity_from_fd(shm, &kind, &id), 0);
  ck_assert_uint_eq(kind, EF_IDENTITY_KIND_SHM);
  ck_assert_msg(id == ((1ull << 56) ^ key), "shm id %016llx, want (1 << 56) ^ %016llx",
                (unsigned long long)id, (unsigned long long)key);
  close(shm);

  int fd = memfd_create("ef-capi-id", MFD_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, 4096), 0);
  ck_assert_int_eq(fstat(fd, &st), 0);
  ck_assert_int_eq(ef_identity_from_fd(fd, &kind, &id), 0);
  ck_assert_uint_eq(id, ((uint64_t)st.st_dev << 32) ^ (uint64_t)st.st_ino);
  close(fd);

  int x;
  ck_assert_int_eq(ef_identity_from_host_ptr(&x, &id), 0);
  ck_assert_uint_eq(id, (6ull << 56) ^ (uint64_t)(uintptr_t)&x);
  uint64_t host = 0, pbo = 0, vk = 0, shm_kind = 0;
  ck_assert_int_eq(ef_identity_from_host_ptr((const void *)(uintptr_t)7, &host), 0);
  ck_assert_int_eq(ef_identity_from_gl_buffer(7, &pbo), 0);
  ck_assert_int_eq(ef_identity_from_vk_image(7, &vk), 0);
  ck_assert_int_eq(ef_identity_derive(EF_IDENTITY_KIND_SHM, 7, &shm_kind), 0);
  ck_assert_uint_eq(host, (6ull << 56) ^ 7);
  ck_assert_uint_eq(pbo, (7ull << 56) ^ 7);
  ck_assert_uint_eq(vk, (8ull << 56) ^ 7);
  ck_assert_uint_eq(shm_kind, (1ull << 56) ^ 7);
  ck_assert(host != pbo && host != vk && pbo != vk && shm_kind != host);
}
END_TEST

START_TEST(test_slot_entry_points) {
  EfSlotRing *ring = NULL;
  ck_assert_failed_with(ef_slot_ring_new(0, &ring), EINVAL, "at least one slot");
  ck_assert_failed_with(ef_slot_ring_new(2, NULL), EINVAL, "NULL");
  ck_assert_int_eq(ef_slot_ring_new(2, &ring), 0);

  EfSlotGate *gate = NULL;
  uint64_t value = 0;
  ck_assert_int_eq(ef_slot_ring_acquire(ring, 1, 1000000, &gate, &value), 0);
  ck_assert_uint_eq(value, 1);
  EfSlotGate *unused = NULL;
  uint64_t v2 = 0;
  ck_assert_failed_with(ef_slot_ring_acquire(ring, 1, 20000000, &unused, &v2), ETIMEDOUT,
                        "slot 1 not released within 20 ms: gate expected 1, observed 0");
  ck_assert_failed_with(ef_slot_ring_acquire(ring, 2, 0, &unused, &v2), EINVAL, "outside the ring");
  ck_assert_failed_with(ef_slot_ring_acquire(NULL, 0, 0, &unused, &v2), EINVAL, "ring is NULL");
  ck_assert_int_eq(ef_slot_gate_arm(gate, value), 0);
  ck_assert_int_eq(ef_slot_gate_arm(gate, value), 0); /* twice: harmless */
  uint64_t seen = 0;
  ck_assert_int_eq(ef_slot_gate_value(gate, &seen), 0);
  ck_assert_uint_eq(seen, 1);
  ck_assert_int_eq(ef_slot_gate_wait(gate, 1, 0), 0);
  ck_assert_failed_with(ef_slot_gate_wait(gate, 2, 1000000), ETIMEDOUT, "expected 2, observed 1");
  ck_assert_failed_with(ef_slot_gate_arm(NULL, 1), EINVAL, "gate is NULL");
  ck_assert_failed_with(ef_slot_gate_value(gate, NULL), EINVAL, "out_value is NULL");
  ck_assert_failed_with(ef_slot_gate_wait(NULL, 1, 0), EINVAL, "gate is NULL");
  ck_assert_int_eq(ef_slot_ring_acquire(ring, 1, 1000000, &unused, &v2), 0);
  ck_assert_uint_eq(v2, 2);
  ef_slot_gate_unref(unused);
  ef_slot_gate_unref(gate);
  ef_slot_ring_free(ring);

  EfSlotGate *solo = NULL;
  ck_assert_int_eq(ef_slot_gate_new(7, &solo), 0);
  ck_assert_ptr_eq(ef_slot_gate_ref(solo), solo);
  ef_slot_gate_unref(solo);
  ck_assert_int_eq(ef_slot_gate_wait(solo, 7, 0), 0);
  ef_slot_gate_unref(solo);
  ck_assert_failed_with(ef_slot_gate_new(0, NULL), EINVAL, "NULL");
}
END_TEST

START_TEST(test_vk_image_entry_points) {
  EfVkImage *img = NULL;
  EfClientState state = {&retains, on_retain, on_release};
  EfClientState no_retain = {&retains, NULL, on_release};
  EfClientState no_release = {&retains, on_retain, NULL};
  retains = releases = 0;

  ck_assert_failed_with(ef_vk_image_wrap(0, NULL, NULL, NULL, NULL, 0, &state, &img), EINVAL,
                        "null handle");
  ck_assert_failed_with(ef_vk_image_wrap(1, NULL, NULL, NULL, NULL, 0, &no_retain, &img), EINVAL,
                        "NULL retain or release");
  ck_assert_failed_with(ef_vk_image_wrap(1, NULL, NULL, NULL, NULL, 0, &no_release, &img), EINVAL,
                        "NULL retain or release");
  ck_assert_failed_with(ef_vk_image_wrap(1, NULL, NULL, NULL, NULL, 0, &state, NULL), EINVAL,
                        "out_image is NULL");
  ck_assert_int_eq(retains, 0);
  ck_assert_int_eq(releases, 0);

  uint8_t uuid[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ck_assert_int_eq(ef_vk_image_wrap(0x77, NULL, NULL, NULL, uuid, 256, &state, &img), 0);
  ck_assert_int_eq(retains, 1);
  EfVkImage *copy = NULL;
  ck_assert_int_eq(ef_vk_image_copy(img, &copy), 0);
  ck_assert_int_eq(retains, 1);

  ck_assert_int_eq(ef_vk_image_set_dimensions(img, 64, 32), 0);
  ck_assert_int_eq(ef_vk_image_set_format(img, EF_PIXEL_FORMAT_NV12), 0);
  ck_assert_failed_with(ef_vk_image_set_format(img, 0), EINVAL, "EF_PIXEL_FORMAT_");
  ck_assert_failed_with(ef_vk_image_set_format(img, 1000), EINVAL, "EF_PIXEL_FORMAT_");
  ck_assert_int_eq(ef_vk_image_set_plane_format(img, EF_PLANE_FORMAT_R8), 0);
  ck_assert_failed_with(ef_vk_image_set_plane_format(img, 77), EINVAL, "EF_PLANE_FORMAT_");

  uint64_t handle = 0;
  uint32_t w = 0, h = 0, pitch = 0, fmt = 0;
  uint8_t got_uuid[16];
  ck_assert_int_eq(ef_vk_image_get_handle(img, &handle), 0);
  ck_assert_uint_eq(handle, 0x77);
  ck_assert_int_eq(ef_vk_image_get_dimensions(img, &w, &h), 0);
  ck_assert_uint_eq(w, 64);
  ck_assert_uint_eq(h, 32);
  ck_assert_int_eq(ef_vk_image_get_row_pitch(img, &pitch), 0);
  ck_assert_uint_eq(pitch, 256);
  ck_assert_int_eq(ef_vk_image_get_format(img, &fmt), 0);
  ck_assert_uint_eq(fmt, EF_PIXEL_FORMAT_NV12);
  ck_assert_failed_with(ef_vk_image_get_format(copy, &fmt), ENOENT, "no format");
  ck_assert_int_eq(ef_vk_image_get_uuid(img, got_uuid), 0);
  ck_assert_int_eq(memcmp(uuid, got_uuid, 16), 0);
  ck_assert_failed_with(ef_vk_image_get_handle(NULL, &handle), EINVAL, "image is NULL");
  ck_assert_failed_with(ef_vk_image_get_dimensions(img, NULL, &h), EINVAL, "NULL");

  uint32_t plane = 0;
  ck_assert_int_eq(ef_vk_image_get_plane_format(img, &plane), 0);
  ck_assert_uint_eq(plane, EF_PLANE_FORMAT_R8);
  ck_assert_failed_with(ef_vk_image_get_plane_format(copy, &plane), ENOENT, "no plane format");

  ck_assert_failed_with(ef_vk_image_release_slot(img), ENOENT, "no slot-release gate");
  EfSlotGate *gate = NULL, *stamped = NULL;
  uint64_t value = 0;
  ck_assert_failed_with(ef_vk_image_get_acquire_release(img, &stamped, &value), ENOENT,
                        "no slot-release gate");
  /* Waiting for GPU work needs a gate first, and a device and a handle. */
  ck_assert_failed_with(ef_vk_image_release_after_fence(img, &value, 1), ENOENT, "no slot-release");
  ck_assert_int_eq(ef_slot_gate_new(0, &gate), 0);
  ck_assert_int_eq(ef_vk_image_set_acquire_release(img, gate, 3), 0);
  ck_assert_failed_with(ef_vk_image_set_acquire_release(img, NULL, 3), EINVAL, "gate is NULL");
  ck_assert_failed_with(ef_vk_image_release_after_fence(img, NULL, 1), EINVAL, "VkDevice");
  ck_assert_failed_with(ef_vk_image_release_after_timeline(img, &value, 0, 1), EINVAL,
                        "VkSemaphore");
  ck_assert_int_eq(ef_vk_image_get_acquire_release(img, &stamped, &value), 0);
  ck_assert_uint_eq(value, 3);
  ck_assert_int_eq(ef_vk_image_release_slot(img), 0);
  ck_assert_int_eq(ef_slot_gate_wait(gate, 3, 0), 0);
  ck_assert_int_eq(ef_slot_gate_wait(stamped, 3, 0), 0); /* the same gate */
  ef_slot_gate_unref(stamped);
  ef_slot_gate_unref(gate);

  ef_vk_image_free(img);
  ck_assert_int_eq(releases, 0); /* the copy still holds the keep-alive */
  ef_vk_image_free(copy);
  ck_assert_int_eq(retains, 1);
  ck_assert_int_eq(releases, 1);
  ef_vk_image_free(NULL);
}
END_TEST

/* --- Sizes of 0 are refused where they are stored or imported ------------ */

START_TEST(test_empty_memfd_and_shm_have_no_identity) {
  uint32_t kind = 99;
  uint64_t id = 0;
  int fd = memfd_create("ef-capi-empty", MFD_CLOEXEC);
  ck_assert_int_ge(fd, 0);
  ck_assert_failed_with(ef_identity_from_fd(fd, &kind, &id), EINVAL, "size 0");
  ck_assert_int_eq(ftruncate(fd, 1), 0);
  ck_assert_int_eq(ef_identity_from_fd(fd, &kind, &id), 0);
  ck_assert_uint_eq(kind, EF_IDENTITY_KIND_DMA_BUF);
  close(fd);

  char name[64];
  snprintf(name, sizeof name, "/ef-capi-empty-%d", (int)getpid());
  int shm = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
  ck_assert_int_ge(shm, 0);
  shm_unlink(name);
  ck_assert_failed_with(ef_identity_from_fd(shm, &kind, &id), EINVAL, "size 0");
  ck_assert_int_eq(ftruncate(shm, 4096), 0);
  ck_assert_int_eq(ef_identity_from_fd(shm, &kind, &id), 0);
  ck_assert_uint_eq(kind, EF_IDENTITY_KIND_SHM);
  close(shm);
}
END_TEST

START_TEST(test_vk_image_side_of_zero_refused) {
  EfVkImage *img = NULL;
  ck_assert_int_eq(ef_vk_image_wrap(0x77, NULL, NULL, NULL, NULL, 0, NULL, &img), 0);
  ck_assert_int_eq(ef_vk_image_set_dimensions(img, 1, 1), 0);
  ck_assert_failed_with(ef_vk_image_set_dimensions(img, 0, 0), EINVAL, "0x0 has a side of 0");
  ck_assert_failed_with(ef_vk_image_set_dimensions(img, 0, 5), EINVAL, "side of 0");
  ck_assert_failed_with(ef_vk_image_set_dimensions(img, 5, 0), EINVAL, "side of 0");
  uint32_t w = 0, h = 0;
  ck_assert_int_eq(ef_vk_image_get_dimensions(img, &w, &h), 0);
  ck_assert_uint_eq(w, 1); /* a refused call changes nothing */
  ck_assert_uint_eq(h, 1);
  ef_vk_image_free(img);
}
END_TEST

/* --- Ring sizes ---------------------------------------------------------- */

START_TEST(test_ring_size_limit) {
  EfSlotRing *ring = NULL;
  ck_assert_failed_with(ef_slot_ring_new(UINT32_MAX, &ring), EINVAL,
                        "4294967295 slots is more than EF_SLOT_RING_MAX_SLOTS (4096)");
  ck_assert_failed_with(ef_slot_ring_new(EF_SLOT_RING_MAX_SLOTS + 1, &ring), EINVAL,
                        "4097 slots is more");
  ck_assert_ptr_null(ring);
  ck_assert_int_eq(ef_slot_ring_new(EF_SLOT_RING_MAX_SLOTS, &ring), 0);
  EfSlotGate *gate = NULL;
  uint64_t value = 0;
  ck_assert_int_eq(ef_slot_ring_acquire(ring, EF_SLOT_RING_MAX_SLOTS - 1, 0, &gate, &value), 0);
  ef_slot_gate_unref(gate);
  ef_slot_ring_free(ring);
}
END_TEST

/* --- Long timeouts --------------------------------------------------------- */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

struct late_arm {
  EfSlotGate *gate;
  uint64_t value;
};

static void *arm_after_50ms(void *arg) {
  const struct late_arm *a = arg;
  usleep(50 * 1000);
  ef_slot_gate_arm(a->gate, a->value);
  return NULL;
}

/* Every timeout from INT64_MAX up, UINT64_MAX included, waits until the gate is
 * armed: none may overflow into "expired". */
static const uint64_t long_timeouts[] = {
    EF_TIMEOUT_FOREVER,      UINT64_MAX - 1, (uint64_t)INT64_MAX + 1, (uint64_t)INT64_MAX,
    (uint64_t)INT64_MAX - 1, 10000000000ull /* 10 s: a deadline the clock can hold */};

START_TEST(test_gate_wait_long_timeout) {
  uint64_t timeout = long_timeouts[_i];
  EfSlotGate *gate = NULL;
  ck_assert_int_eq(ef_slot_gate_new(0, &gate), 0);
  struct late_arm a = {gate, 1};
  pthread_t t;
  double start = now_ms();
  ck_assert_int_eq(pthread_create(&t, NULL, arm_after_50ms, &a), 0);
  int rc = ef_slot_gate_wait(gate, 1, timeout);
  double waited = now_ms() - start;
  pthread_join(t, NULL);
  ck_assert_msg(rc == 0, "timeout %llu: rc %d after %.1f ms: %s", (unsigned long long)timeout, rc,
                waited, ef_last_error());
  ck_assert_msg(waited >= 40, "timeout %llu returned after %.1f ms", (unsigned long long)timeout,
                waited);
  ef_slot_gate_unref(gate);
}
END_TEST

START_TEST(test_ring_acquire_long_timeout) {
  uint64_t timeout = long_timeouts[_i];
  EfSlotRing *ring = NULL;
  EfSlotGate *gate = NULL, *next = NULL;
  uint64_t value = 0, next_value = 0;
  ck_assert_int_eq(ef_slot_ring_new(1, &ring), 0);
  ck_assert_int_eq(ef_slot_ring_acquire(ring, 0, 0, &gate, &value), 0);
  struct late_arm a = {gate, value};
  pthread_t t;
  double start = now_ms();
  ck_assert_int_eq(pthread_create(&t, NULL, arm_after_50ms, &a), 0);
  int rc = ef_slot_ring_acquire(ring, 0, timeout, &next, &next_value);
  double waited = now_ms() - start;
  pthread_join(t, NULL);
  ck_assert_msg(rc == 0, "timeout %llu: rc %d after %.1f ms: %s", (unsigned long long)timeout, rc,
                waited, ef_last_error());
  ck_assert(waited >= 40);
  ck_assert_uint_eq(next_value, 2);
  ef_slot_gate_unref(next);
  ef_slot_gate_unref(gate);
  ef_slot_ring_free(ring);
}
END_TEST

static Suite *capi_suite(void) {
  Suite *s = suite_create("capi");
  TCase *tc = tcase_create("c");
  tcase_add_test(tc, test_identity_entry_points);
  tcase_add_test(tc, test_identity_ids_carry_kind);
  tcase_add_test(tc, test_slot_entry_points);
  tcase_add_test(tc, test_vk_image_entry_points);
  tcase_add_test(tc, test_empty_memfd_and_shm_have_no_identity);
  tcase_add_test(tc, test_vk_image_side_of_zero_refused);
  tcase_add_test(tc, test_ring_size_limit);
  int n = (int)(sizeof long_timeouts / sizeof long_timeouts[0]);
  tcase_add_loop_test(tc, test_gate_wait_long_timeout, 0, n);
  tcase_add_loop_test(tc, test_ring_acquire_long_timeout, 0, n);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(capi_suite());
}
