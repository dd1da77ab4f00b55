/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fuzz of the C ABI, from C as a client would call it. Every function of ef.h
 * is called with NULLs, bad fds, out-of-range enums and extreme values, then a
 * few thousand seeded random calls run over pools of live gates, rings and
 * images. Each call must return 0 or an errno with a non-empty ef_last_error()
 * (a C++ exception unwinding into C would abort here); every EfClientState is
 * retained once and released once, after its last image; no fd is left open;
 * the sanitizer build adds leaks and undefined behaviour to that.
 *
 * Each phase runs in a child process, so a crash names its phase and signal.
 * EF_FUZZ_SEED repeats a run (the seed is printed); EF_FUZZ_CALLS sets how many
 * random calls are made (default 4000).
 *
 * Not fuzzed: non-NULL garbage handles (a VkDevice, an EfSlotGate pointer)
 * are undefined behaviour in any C API, so release_after_* gets a NULL device
 * or a 0 handle, never an invented device. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ef/ef.h"

/* --- Checks ----------------------------------------------------------------- */

static int failures;
static const char *phase = "";

#define FAILED(...)                                                  \
  do {                                                               \
    fprintf(stderr, "FAIL [%s] %s:%d: ", phase, __FILE__, __LINE__); \
    fprintf(stderr, __VA_ARGS__);                                    \
    fputc('\n', stderr);                                             \
    ++failures;                                                      \
  } while (0)

static bool known_errno(int rc) {
  switch (rc) {
    case EINVAL:
    case EBADF:
    case ENOENT:
    case ETIMEDOUT:
    case ENOMEM:
    case ENOTSUP:
    case EIO:
    case EACCES:
      return true;
    default:
      return false;
  }
}

static long answers[256]; /* how often each code came back, for the summary */

/* The contract of every int-returning entry point. */
static int checked(int rc, const char *call, int line) {
  answers[rc >= 0 && rc < 256 ? rc : 255]++;
  if (rc != 0 && !known_errno(rc))
    FAILED("line %d: %s returned %d, not 0 or an errno of ef.h", line, call, rc);
  if (rc != 0 && ef_last_error()[0] == '\0')
    FAILED("line %d: %s failed with %d and no message", line, call, rc);
  return rc;
}
#define CALL(expr) checked((expr), #expr, __LINE__)

/* A call whose answer is known. */
#define EXPECT(expr, code)                                                          \
  do {                                                                              \
    int rc_ = CALL(expr);                                                           \
    if (rc_ != (code))                                                              \
      FAILED("%s: %d, expected %d (%s)", #expr, rc_, (int)(code), ef_last_error()); \
  } while (0)

static int open_fds(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/fd");
  if (!d)
    return -1;
  while (readdir(d))
    ++n;
  closedir(d);
  return n;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* --- Keep-alive accounting ------------------------------------------------- */

/* One per ef_vk_image_wrap with a keep-alive: retained once by a successful
 * wrap, released once when its last image is freed, never before. */
typedef struct Anchor {
  int retains, releases, images;
  bool wrapped;
} Anchor;

#define MAX_ANCHORS 8192
static Anchor anchors[MAX_ANCHORS];
static int anchors_used;

static void on_retain(const void *ctx) {
  ((Anchor *)(uintptr_t)ctx)->retains++;
}
static void on_release(const void *ctx) {
  Anchor *a = (Anchor *)(uintptr_t)ctx;
  a->releases++;
  if (a->images != 0)
    FAILED("anchor %d released while %d of its images are alive", (int)(a - anchors), a->images);
}

static Anchor *new_anchor(void) {
  if (anchors_used == MAX_ANCHORS)
    return NULL;
  Anchor *a = &anchors[anchors_used++];
  memset(a, 0, sizeof *a);
  return a;
}

static void check_anchors(void) {
  for (int i = 0; i < anchors_used; ++i) {
    const Anchor *a = &anchors[i];
    int want = a->wrapped ? 1 : 0;
    if (a->retains != want || a->releases != want)
      FAILED("anchor %d (%s): retained %d, released %d times; want %d each", i,
             a->wrapped ? "wrapped" : "refused", a->retains, a->releases, want);
  }
}

/* An image and the anchor its copies share (NULL without a keep-alive). */
typedef struct Image {
  EfVkImage *image;
  Anchor *anchor;
} Image;

static void free_image(Image *img) {
  if (img->anchor)
    img->anchor->images--;
  ef_vk_image_free(img->image);
  img->image = NULL;
  img->anchor = NULL;
}

static int wrap(uint64_t handle, const uint8_t *uuid, uint32_t pitch, int keep_alive_kind,
                bool null_out, Image *out) {
  Anchor *a = keep_alive_kind ? new_anchor() : NULL;
  EfClientState state = {a, on_retain, on_release};
  if (keep_alive_kind == 2)
    state.retain = NULL;
  if (keep_alive_kind == 3)
    state.release = NULL;
  EfVkImage *image = NULL;
  int rc = CALL(ef_vk_image_wrap(handle, (void *)(uintptr_t)0x1000, NULL, (void *)(uintptr_t)~0ull,
                                 uuid, pitch, a ? &state : NULL, null_out ? NULL : &image));
  if (rc == 0) {
    if (a) {
      a->wrapped = true;
      a->images = 1;
    }
    out->image = image;
    out->anchor = a;
  }
  return rc;
}

/* --- Fds -------------------------------------------------------------------- */

static int make_memfd(size_t size) {
  int fd = memfd_create("ef-fuzz", MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static int make_shm(size_t size) {
  char name[64];
  static int n;
  snprintf(name, sizeof name, "/ef-fuzz-%d-%d", (int)getpid(), n++);
  int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return -1;
  shm_unlink(name);
  if (ftruncate(fd, (off_t)size) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Fds of every sort and what ef_identity_from_fd says about each. */
typedef struct FdCase {
  const char *what;
  int fd;
  int expected;
  uint32_t kind; /* when expected == 0 */
} FdCase;

enum { FD_CASES = 15 };

static void make_fd_cases(FdCase c[FD_CASES]) {
  int p[2] = {-1, -1}, s[2] = {-1, -1};
  if (pipe2(p, O_CLOEXEC) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) != 0)
    FAILED("pipe or socketpair: %s", strerror(errno));
  /* A number far above any the phase opens, so no later open reuses it. */
  int memfd = make_memfd(4096);
  int closed = fcntl(memfd, F_DUPFD_CLOEXEC, 900);
  close(memfd);
  close(closed);
  FdCase cases[FD_CASES] = {
      {"-1", -1, EBADF, 0},
      {"INT32_MIN", INT32_MIN, EBADF, 0},
      {"INT32_MAX", INT32_MAX, EBADF, 0},
      {"a closed fd", closed, EBADF, 0},
      {"a pipe's read end", p[0], EINVAL, 0},
      {"a pipe's write end", p[1], EINVAL, 0},
      {"a socket", s[0], EINVAL, 0},
      {"a directory", open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), EINVAL, 0},
      {"a disk file", open("/proc/self/exe", O_RDONLY | O_CLOEXEC), EINVAL, 0},
      {"/dev/null", open("/dev/null", O_RDWR | O_CLOEXEC), EINVAL, 0},
      {"an eventfd", eventfd(0, EFD_CLOEXEC), EINVAL, 0},
      {"a memfd of size 0", make_memfd(0), EINVAL, 0},
      {"a shm file of size 0", make_shm(0), EINVAL, 0},
      {"a memfd of one byte", make_memfd(1), 0, EF_IDENTITY_KIND_DMA_BUF},
      {"a shm file of 4096 bytes", make_shm(4096), 0, EF_IDENTITY_KIND_SHM},
  };
  close(s[1]);
  memcpy(c, cases, sizeof cases);
  for (int i = 4; i < FD_CASES; ++i)
    if (c[i].fd < 0)
      FAILED("could not make %s: %s", c[i].what, strerror(errno));
}

static void close_fd_cases(FdCase c[FD_CASES]) {
  for (int i = 4; i < FD_CASES; ++i)
    close(c[i].fd);
}

/* --- Phases ---------------------------------------------------------------- */

static void phase_nulls(void) {
  uint64_t id, value;
  uint32_t kind, w, h;
  uint8_t uuid[16];
  EfSlotGate *gate = NULL;
  EfSlotRing *ring = NULL;
  Image img = {0};

  EXPECT(ef_identity_derive(0, 1, NULL), EINVAL);
  EXPECT(ef_identity_from_fd(0, NULL, &id), EINVAL);
  EXPECT(ef_identity_from_fd(0, &kind, NULL), EINVAL);
  EXPECT(ef_identity_from_host_ptr(NULL, &id), EINVAL);
  EXPECT(ef_identity_from_host_ptr(&id, NULL), EINVAL);
  EXPECT(ef_identity_from_gl_buffer(1, NULL), EINVAL);
  EXPECT(ef_identity_from_vk_image(1, NULL), EINVAL);

  EXPECT(ef_slot_gate_new(0, NULL), EINVAL);
  if (ef_slot_gate_ref(NULL) != NULL)
    FAILED("ef_slot_gate_ref(NULL) is not NULL");
  ef_slot_gate_unref(NULL);
  EXPECT(ef_slot_gate_arm(NULL, 1), EINVAL);
  EXPECT(ef_slot_gate_value(NULL, &value), EINVAL);
  EXPECT(ef_slot_gate_wait(NULL, 0, 0), EINVAL);
  EXPECT(ef_slot_gate_wait(NULL, 1, EF_TIMEOUT_FOREVER), EINVAL);
  EXPECT(ef_slot_ring_new(1, NULL), EINVAL);
  ef_slot_ring_free(NULL);
  EXPECT(ef_slot_ring_acquire(NULL, 0, 0, &gate, &value), EINVAL);

  EXPECT(ef_slot_gate_new(0, &gate), 0);
  EXPECT(ef_slot_gate_value(gate, NULL), EINVAL);
  EXPECT(ef_slot_ring_new(1, &ring), 0);
  EXPECT(ef_slot_ring_acquire(ring, 0, 0, NULL, &value), EINVAL);
  EXPECT(ef_slot_ring_acquire(ring, 0, 0, &gate, NULL), EINVAL);

  EXPECT(wrap(1, NULL, 0, 0, true, &img), EINVAL);
  EXPECT(wrap(1, NULL, 0, 2, false, &img), EINVAL); /* NULL retain */
  EXPECT(wrap(1, NULL, 0, 3, false, &img), EINVAL); /* NULL release */
  EXPECT(ef_vk_image_copy(NULL, &img.image), EINVAL);
  ef_vk_image_free(NULL);
  EXPECT(ef_vk_image_set_dimensions(NULL, 1, 1), EINVAL);
  EXPECT(ef_vk_image_set_format(NULL, EF_PIXEL_FORMAT_RGBA8), EINVAL);
  EXPECT(ef_vk_image_set_plane_format(NULL, EF_PLANE_FORMAT_R8), EINVAL);
  EXPECT(ef_vk_image_set_acquire_release(NULL, gate, 1), EINVAL);
  EXPECT(ef_vk_image_get_handle(NULL, &id), EINVAL);
  EXPECT(ef_vk_image_get_dimensions(NULL, &w, &h), EINVAL);
  EXPECT(ef_vk_image_get_row_pitch(NULL, &w), EINVAL);
  EXPECT(ef_vk_image_get_format(NULL, &w), EINVAL);
  EXPECT(ef_vk_image_get_uuid(NULL, uuid), EINVAL);
  EXPECT(ef_vk_image_get_plane_format(NULL, &w), EINVAL);
  EXPECT(ef_vk_image_get_acquire_release(NULL, &gate, &value), EINVAL);
  EXPECT(ef_vk_image_release_slot(NULL), EINVAL);
  EXPECT(ef_vk_image_release_after_fence(NULL, NULL, 0), EINVAL);
  EXPECT(ef_vk_image_release_after_timeline(NULL, NULL, 0, 0), EINVAL);

  EXPECT(wrap(1, NULL, 0, 1, false, &img), 0);
  EXPECT(ef_vk_image_copy(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_set_acquire_release(img.image, NULL, 1), EINVAL);
  EXPECT(ef_vk_image_get_handle(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_get_dimensions(img.image, NULL, &h), EINVAL);
  EXPECT(ef_vk_image_get_dimensions(img.image, &w, NULL), EINVAL);
  EXPECT(ef_vk_image_get_row_pitch(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_get_format(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_get_uuid(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_get_uuid(img.image, uuid), ENOENT); /* wrapped without one */
  EXPECT(ef_vk_image_get_plane_format(img.image, NULL), EINVAL);
  EXPECT(ef_vk_image_get_acquire_release(img.image, NULL, &value), EINVAL);
  EXPECT(ef_vk_image_get_acquire_release(img.image, &gate, NULL), EINVAL);
  EXPECT(ef_vk_image_release_slot(img.image), ENOENT);
  EXPECT(ef_vk_image_release_after_fence(img.image, NULL, 1), ENOENT);
  EXPECT(ef_vk_image_set_acquire_release(img.image, gate, 1), 0);
  EXPECT(ef_vk_image_release_after_fence(img.image, NULL, 1), EINVAL);
  EXPECT(ef_vk_image_release_after_fence(img.image, &value, 0), EINVAL);
  EXPECT(ef_vk_image_release_after_timeline(img.image, NULL, 1, 1), EINVAL);
  EXPECT(ef_vk_image_release_after_timeline(img.image, &value, 0, 1), EINVAL);
  free_image(&img);
  ef_slot_gate_unref(gate);
  ef_slot_ring_free(ring);
}

static void phase_fds(void) {
  FdCase c[FD_CASES];
  make_fd_cases(c);
  for (int i = 0; i < FD_CASES; ++i) {
    uint32_t kind = 99;
    uint64_t id = 0;
    int rc = CALL(ef_identity_from_fd(c[i].fd, &kind, &id));
    if (rc != c[i].expected)
      FAILED("ef_identity_from_fd(%s): %d, expected %d (%s)", c[i].what, rc, c[i].expected,
             ef_last_error());
    else if (rc == 0 && kind != c[i].kind)
      FAILED("ef_identity_from_fd(%s): kind %u, expected %u", c[i].what, kind, c[i].kind);
  }
  close_fd_cases(c);
}

static void phase_enums(void) {
  /* The first value past each enum's end, then values far outside. */
  static const uint32_t bad_kinds[] = {EF_IDENTITY_KIND_VK_IMAGE + 1, 255, 256, 0x80000000u,
                                       UINT32_MAX};
  static const uint32_t bad_formats[] = {0, EF_PIXEL_FORMAT_YUYV + 1, 255, 0x80000000u, UINT32_MAX};
  static const uint32_t bad_planes[] = {0, EF_PLANE_FORMAT_R16 + 1, 255, 0x80000000u, UINT32_MAX};
  uint64_t id;
  for (uint32_t k = 0; k <= EF_IDENTITY_KIND_VK_IMAGE; ++k) {
    EXPECT(ef_identity_derive(k, 0x1234, &id), 0);
    if (id != (((uint64_t)k << 56) ^ 0x1234))
      FAILED("ef_identity_derive(%u): %016" PRIx64 " breaks id = (kind << 56) ^ key", k, id);
  }
  for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; ++i)
    EXPECT(ef_identity_derive(bad_kinds[i], 1, &id), EINVAL);

  Image img = {0};
  EXPECT(wrap(5, NULL, 0, 0, false, &img), 0);
  uint32_t got = 0;
  EXPECT(ef_vk_image_get_format(img.image, &got), ENOENT);
  EXPECT(ef_vk_image_get_plane_format(img.image, &got), ENOENT);
  for (uint32_t f = EF_PIXEL_FORMAT_RGBA8; f <= EF_PIXEL_FORMAT_YUYV; ++f) {
    EXPECT(ef_vk_image_set_format(img.image, f), 0);
    EXPECT(ef_vk_image_get_format(img.image, &got), 0);
    if (got != f)
      FAILED("pixel format %u read back as %u", f, got);
  }
  for (uint32_t f = EF_PLANE_FORMAT_R8; f <= EF_PLANE_FORMAT_R16; ++f)
    EXPECT(ef_vk_image_set_plane_format(img.image, f), 0);
  for (size_t i = 0; i < sizeof bad_formats / sizeof bad_formats[0]; ++i) {
    EXPECT(ef_vk_image_set_format(img.image, bad_formats[i]), EINVAL);
    EXPECT(ef_vk_image_set_plane_format(img.image, bad_planes[i]), EINVAL);
  }
  EXPECT(ef_vk_image_get_format(img.image, &got), 0);
  if (got != EF_PIXEL_FORMAT_YUYV)
    FAILED("a refused format replaced the stamped one: %u", got);
  free_image(&img);
}

typedef struct LateArm {
  EfSlotGate *gate;
  uint64_t value;
  int delay_ms;
} LateArm;

static void *arm_later(void *arg) {
  const LateArm *a = arg;
  usleep((useconds_t)a->delay_ms * 1000);
  ef_slot_gate_arm(a->gate, a->value);
  return NULL;
}

/* A timeout this long must wait for the arm, not expire at once. */
static void check_long_wait(uint64_t timeout_ns) {
  EfSlotGate *gate = NULL;
  EXPECT(ef_slot_gate_new(0, &gate), 0);
  LateArm a = {gate, 1, 20};
  pthread_t t;
  double start = now_ms();
  if (pthread_create(&t, NULL, arm_later, &a) != 0) {
    FAILED("pthread_create");
    return;
  }
  int rc = CALL(ef_slot_gate_wait(gate, 1, timeout_ns));
  double waited = now_ms() - start;
  pthread_join(t, NULL);
  if (rc != 0 || waited < 15)
    FAILED("ef_slot_gate_wait(timeout %" PRIu64 "): %d after %.1f ms (%s)", timeout_ns, rc, waited,
           ef_last_error());
  ef_slot_gate_unref(gate);
}

static void phase_extremes(void) {
  static const uint64_t keys[] = {0, 1, UINT64_MAX, (uint64_t)INT64_MAX + 1, (uint64_t)INT64_MAX};
  uint64_t id, value;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
    EXPECT(ef_identity_derive(EF_IDENTITY_KIND_SHM, keys[i], &id), 0);
    EXPECT(ef_identity_from_vk_image(keys[i], &id), keys[i] ? 0 : EINVAL);
  }
  EXPECT(ef_identity_from_gl_buffer(0, &id), EINVAL);
  EXPECT(ef_identity_from_gl_buffer(1, &id), 0);
  EXPECT(ef_identity_from_gl_buffer(UINT32_MAX, &id), 0);
  EXPECT(ef_identity_from_host_ptr((const void *)(uintptr_t)1, &id), 0);
  EXPECT(ef_identity_from_host_ptr((const void *)UINTPTR_MAX, &id), 0);

  EfSlotRing *ring = NULL;
  EXPECT(ef_slot_ring_new(0, &ring), EINVAL);
  EXPECT(ef_slot_ring_new(EF_SLOT_RING_MAX_SLOTS + 1, &ring), EINVAL);
  EXPECT(ef_slot_ring_new(UINT32_MAX, &ring), EINVAL);
  EXPECT(ef_slot_ring_new(EF_SLOT_RING_MAX_SLOTS, &ring), 0);
  EfSlotGate *gate = NULL;
  EXPECT(ef_slot_ring_acquire(ring, EF_SLOT_RING_MAX_SLOTS, 0, &gate, &value), EINVAL);
  EXPECT(ef_slot_ring_acquire(ring, UINT32_MAX, EF_TIMEOUT_FOREVER, &gate, &value), EINVAL);
  EXPECT(ef_slot_ring_acquire(ring, EF_SLOT_RING_MAX_SLOTS - 1, EF_TIMEOUT_FOREVER, &gate, &value),
         0);
  EXPECT(ef_slot_ring_acquire(ring, EF_SLOT_RING_MAX_SLOTS - 1, 1, &gate, &value), ETIMEDOUT);
  ef_slot_gate_unref(gate);
  ef_slot_ring_free(ring);

  /* Values only grow: UINT64_MAX is the end, and waits for it are met at once. */
  EXPECT(ef_slot_gate_new(UINT64_MAX, &gate), 0);
  EXPECT(ef_slot_gate_arm(gate, 0), 0);
  EXPECT(ef_slot_gate_value(gate, &value), 0);
  if (value != UINT64_MAX)
    FAILED("a gate went back from UINT64_MAX to %" PRIu64, value);
  EXPECT(ef_slot_gate_wait(gate, UINT64_MAX, EF_TIMEOUT_FOREVER), 0);
  ef_slot_gate_unref(gate);
  EXPECT(ef_slot_gate_new(0, &gate), 0);
  EXPECT(ef_slot_gate_wait(gate, UINT64_MAX, 0), ETIMEDOUT);
  EXPECT(ef_slot_gate_wait(gate, 1, 1), ETIMEDOUT);
  EXPECT(ef_slot_gate_wait(gate, 0, EF_TIMEOUT_FOREVER), 0);
  ef_slot_gate_unref(gate);
  check_long_wait(UINT64_MAX);
  check_long_wait(UINT64_MAX - 1);
  check_long_wait((uint64_t)INT64_MAX + 1);
  check_long_wait((uint64_t)INT64_MAX);
  check_long_wait((uint64_t)INT64_MAX - 1);

  Image img = {0};
  uint8_t uuid[16];
  memset(uuid, 0xff, sizeof uuid);
  EXPECT(wrap(UINT64_MAX, uuid, UINT32_MAX, 1, false, &img), 0);
  EXPECT(ef_vk_image_set_dimensions(img.image, UINT32_MAX, UINT32_MAX), 0);
  EXPECT(ef_vk_image_set_dimensions(img.image, 1, 1), 0);
  EXPECT(ef_vk_image_set_dimensions(img.image, 0, 0), EINVAL);
  EXPECT(ef_vk_image_set_dimensions(img.image, 0, UINT32_MAX), EINVAL);
  EXPECT(ef_vk_image_set_dimensions(img.image, UINT32_MAX, 0), EINVAL);
  uint32_t w = 0, h = 0, pitch = 0;
  EXPECT(ef_vk_image_get_dimensions(img.image, &w, &h), 0);
  EXPECT(ef_vk_image_get_row_pitch(img.image, &pitch), 0);
  if (w != 1 || h != 1 || pitch != UINT32_MAX)
    FAILED("read back %ux%u pitch %u, wanted 1x1 pitch %u", w, h, pitch, UINT32_MAX);
  EXPECT(ef_vk_image_get_handle(img.image, &id), 0);
  if (id != UINT64_MAX)
    FAILED("handle read back as %" PRIx64, id);
  EXPECT(ef_slot_gate_new(0, &gate), 0);
  EXPECT(ef_vk_image_set_acquire_release(img.image, gate, UINT64_MAX), 0);
  EXPECT(ef_vk_image_release_slot(img.image), 0);
  EXPECT(ef_slot_gate_wait(gate, UINT64_MAX, 0), 0);
  ef_slot_gate_unref(gate);
  free_image(&img);
}

/* --- Seeded random calls ----------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}
static uint32_t below(uint32_t n) {
  return (uint32_t)(rnd() % n);
}
static bool chance(uint32_t one_in) {
  return below(one_in) == 0;
}

static uint64_t any_u64(void) {
  static const uint64_t edges[] = {
      0, 1, 2, UINT64_MAX, UINT64_MAX - 1, (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1};
  return chance(2) ? edges[below(sizeof edges / sizeof edges[0])] : rnd();
}
static uint32_t any_u32(void) {
  static const uint32_t edges[] = {0, 1, 2, 9, 10, 255, 4096, 4097, 0x7fffffffu, UINT32_MAX};
  return chance(2) ? edges[below(sizeof edges / sizeof edges[0])] : (uint32_t)rnd();
}
/* A wait that may not be met gets a timeout that cannot block for long. */
static uint64_t short_timeout(void) {
  static const uint64_t t[] = {0, 1, 1000, 50000};
  return t[below(4)];
}
/* An out pointer, or now and then NULL. */
#define OUT(p) (chance(16) ? NULL : (p))

#define POOL 24
#define RINGS 8

typedef struct Ring {
  EfSlotRing *ring;
  uint32_t slots;
  EfSlotGate **last_gate; /* our reference to each slot's last use */
  uint64_t *last_value;
} Ring;

typedef struct Pools {
  EfSlotGate *gates[POOL]; /* each entry holds one reference */
  Ring rings[RINGS];
  Image images[POOL];
  FdCase fds[FD_CASES];
} Pools;

static EfSlotGate **gate_entry(Pools *p) {
  return &p->gates[below(POOL)];
}
static EfSlotGate *some_gate(Pools *p) {
  return chance(8) ? NULL : *gate_entry(p);
}
static void keep_gate(Pools *p, EfSlotGate *gate) {
  EfSlotGate **entry = gate_entry(p);
  ef_slot_gate_unref(*entry);
  *entry = gate;
}

static void free_ring(Ring *r) {
  if (!r->ring)
    return;
  for (uint32_t s = 0; s < r->slots; ++s)
    ef_slot_gate_unref(r->last_gate[s]);
  free(r->last_gate);
  free(r->last_value);
  ef_slot_ring_free(r->ring);
  memset(r, 0, sizeof *r);
}

/* A slot is free when its last use was armed: only then may a wait be long. */
static bool slot_free(const Ring *r, uint32_t s) {
  uint64_t v = 0;
  if (s >= r->slots || !r->last_gate[s])
    return true;
  ef_slot_gate_value(r->last_gate[s], &v);
  return v >= r->last_value[s];
}

static void random_ring_new(Ring *r) {
  uint32_t slots = chance(4) ? any_u32() : 1 + below(8);
  EfSlotRing *ring = NULL;
  bool null_out = chance(16);
  int rc = CALL(ef_slot_ring_new(slots, null_out ? NULL : &ring));
  bool valid = !null_out && slots >= 1 && slots <= EF_SLOT_RING_MAX_SLOTS;
  if ((rc == 0) != valid)
    FAILED("ef_slot_ring_new(%u%s): %d", slots, null_out ? ", NULL" : "", rc);
  if (rc != 0)
    return;
  free_ring(r);
  r->ring = ring;
  r->slots = slots;
  r->last_gate = calloc(slots, sizeof *r->last_gate);
  r->last_value = calloc(slots, sizeof *r->last_value);
}

static void random_ring_acquire(Pools *p, Ring *r) {
  EfSlotGate *gate = NULL;
  uint64_t value = 0;
  if (!r->ring) {
    EXPECT(ef_slot_ring_acquire(NULL, 0, any_u64(), &gate, &value), EINVAL);
    return;
  }
  uint32_t slot = chance(8) ? any_u32() : below(r->slots);
  uint64_t timeout = slot_free(r, slot) ? any_u64() : short_timeout();
  int rc = CALL(ef_slot_ring_acquire(r->ring, slot, timeout, &gate, &value));
  int expected = slot >= r->slots ? EINVAL : slot_free(r, slot) ? 0 : ETIMEDOUT;
  if (rc != expected)
    FAILED("acquire of slot %u of %u: %d, expected %d (%s)", slot, r->slots, rc, expected,
           ef_last_error());
  if (rc != 0)
    return;
  if (value != r->last_value[slot] + 1)
    FAILED("slot %u: use %" PRIu64 " after %" PRIu64, slot, value, r->last_value[slot]);
  ef_slot_gate_unref(r->last_gate[slot]);
  r->last_gate[slot] = gate;
  r->last_value[slot] = value;
  keep_gate(p, ef_slot_gate_ref(gate)); /* so that random arms release it */
}

static void random_ring_call(Pools *p) {
  Ring *r = &p->rings[below(RINGS)];
  switch (below(4)) {
    case 0:
      random_ring_new(r);
      break;
    case 1:
      free_ring(r);
      break;
    default:
      random_ring_acquire(p, r);
      break;
  }
}

static void random_gate_wait(EfSlotGate *gate) {
  uint64_t expected = chance(2) ? below(4) : any_u64();
  uint64_t now = 0;
  if (gate)
    ef_slot_gate_value(gate, &now);
  bool met = gate && now >= expected;
  int rc = CALL(ef_slot_gate_wait(gate, expected, met ? any_u64() : short_timeout()));
  if (rc != (!gate ? EINVAL : met ? 0 : ETIMEDOUT))
    FAILED("ef_slot_gate_wait(%" PRIu64 ") on a gate at %" PRIu64 ": %d", expected, now, rc);
}

static void random_gate_call(Pools *p) {
  EfSlotGate *gate = some_gate(p);
  EfSlotGate *made = NULL;
  uint64_t value = 0;
  switch (below(6)) {
    case 0: {
      bool null_out = chance(16);
      EXPECT(ef_slot_gate_new(any_u64(), null_out ? NULL : &made), null_out ? EINVAL : 0);
      if (made)
        keep_gate(p, made);
      break;
    }
    case 1:
      if (ef_slot_gate_ref(gate) != gate)
        FAILED("ef_slot_gate_ref returned another gate");
      if (gate)
        keep_gate(p, gate);
      break;
    case 2: {
      EfSlotGate **entry = gate_entry(p);
      ef_slot_gate_unref(*entry);
      *entry = NULL;
      break;
    }
    case 3:
      EXPECT(ef_slot_gate_arm(gate, chance(2) ? below(4) : any_u64()), gate ? 0 : EINVAL);
      break;
    case 4: {
      uint64_t *out = OUT(&value);
      EXPECT(ef_slot_gate_value(gate, out), gate && out ? 0 : EINVAL);
      break;
    }
    case 5:
      random_gate_wait(gate);
      break;
  }
}

static void random_wrap(Image *img) {
  uint8_t uuid[16];
  for (int i = 0; i < 16; ++i)
    uuid[i] = (uint8_t)rnd();
  uint64_t handle = chance(8) ? 0 : any_u64();
  int keep_alive = anchors_used < MAX_ANCHORS ? (int)below(4) : 0;
  bool null_out = chance(16);
  Image made = {0};
  int rc = wrap(handle, chance(2) ? uuid : NULL, any_u32(), keep_alive, null_out, &made);
  bool valid = handle && !null_out && keep_alive < 2;
  if ((rc == 0) != valid)
    FAILED("ef_vk_image_wrap(handle %" PRIx64 ", keep-alive kind %d): %d", handle, keep_alive, rc);
  if (rc != 0)
    return;
  free_image(img);
  *img = made;
}

static void random_copy(Pools *p, Image *img, EfVkImage *image) {
  Image copy = {0};
  EfVkImage **out = OUT(&copy.image);
  EXPECT(ef_vk_image_copy(image, out), image && out ? 0 : EINVAL);
  if (!copy.image)
    return;
  copy.anchor = img->anchor;
  if (copy.anchor)
    copy.anchor->images++;
  Image *dst = &p->images[below(POOL)];
  if (dst == img) {
    free_image(&copy);
    return;
  }
  free_image(dst);
  *dst = copy;
}

/* The setters, with values in and out of range. */
static void random_set(Pools *p, EfVkImage *image) {
  uint32_t a = 0, b = 0;
  switch (below(4)) {
    case 0:
      a = chance(4) ? 0 : any_u32();
      b = chance(4) ? 0 : any_u32();
      EXPECT(ef_vk_image_set_dimensions(image, a, b), image && a && b ? 0 : EINVAL);
      break;
    case 1:
      a = chance(2) ? 1 + below(EF_PIXEL_FORMAT_YUYV) : any_u32();
      EXPECT(ef_vk_image_set_format(image, a),
             image && a >= 1 && a <= EF_PIXEL_FORMAT_YUYV ? 0 : EINVAL);
      break;
    case 2:
      a = chance(2) ? 1 + below(EF_PLANE_FORMAT_R16) : any_u32();
      EXPECT(ef_vk_image_set_plane_format(image, a),
             image && a >= 1 && a <= EF_PLANE_FORMAT_R16 ? 0 : EINVAL);
      break;
    case 3: {
      EfSlotGate *gate = some_gate(p);
      EXPECT(ef_vk_image_set_acquire_release(image, gate, chance(2) ? below(4) : any_u64()),
             image && gate ? 0 : EINVAL);
      break;
    }
  }
}

/* The getters, the slot release and the deferred releases. */
static void random_get(Pools *p, EfVkImage *image) {
  uint32_t a = 0, b = 0;
  uint64_t u = 0;
  uint8_t uuid[16];
  EfSlotGate *gate = NULL;
  int rc;
  switch (below(10)) {
    case 0:
      CALL(ef_vk_image_get_handle(image, OUT(&u)));
      break;
    case 1:
      CALL(ef_vk_image_get_dimensions(image, OUT(&a), OUT(&b)));
      break;
    case 2:
      CALL(ef_vk_image_get_row_pitch(image, OUT(&a)));
      break;
    case 3:
      CALL(ef_vk_image_get_format(image, OUT(&a)));
      break;
    case 4:
      CALL(ef_vk_image_get_uuid(image, OUT(uuid)));
      break;
    case 5:
      CALL(ef_vk_image_get_plane_format(image, OUT(&a)));
      break;
    case 6:
      if (CALL(ef_vk_image_get_acquire_release(image, OUT(&gate), OUT(&u))) == 0)
        keep_gate(p, gate);
      break;
    case 7:
      CALL(ef_vk_image_release_slot(image));
      break;
    case 8: /* a NULL device or a 0 handle: refused before any Vulkan call */
      rc = CALL(chance(2) ? ef_vk_image_release_after_fence(image, NULL, any_u64())
                          : ef_vk_image_release_after_fence(image, &u, 0));
      if (rc == 0)
        FAILED("ef_vk_image_release_after_fence queued a NULL device or fence");
      break;
    case 9:
      rc = CALL(chance(2) ? ef_vk_image_release_after_timeline(image, NULL, any_u64(), any_u64())
                          : ef_vk_image_release_after_timeline(image, &u, 0, any_u64()));
      if (rc == 0)
        FAILED("ef_vk_image_release_after_timeline queued a NULL device or semaphore");
      break;
  }
}

static void random_image_call(Pools *p) {
  Image *img = &p->images[below(POOL)];
  EfVkImage *image = chance(10) ? NULL : img->image;
  switch (below(6)) {
    case 0:
      random_wrap(img);
      break;
    case 1:
      random_copy(p, img, image);
      break;
    case 2:
      free_image(img);
      break;
    case 3:
      random_set(p, image);
      break;
    default:
      random_get(p, image);
      break;
  }
}

static void random_identity_call(Pools *p) {
  uint64_t id = 0;
  uint32_t kind = 0, k, name;
  uint64_t *out = OUT(&id);
  switch (below(5)) {
    case 0:
      k = chance(2) ? below(EF_IDENTITY_KIND_VK_IMAGE + 1) : any_u32();
      EXPECT(ef_identity_derive(k, any_u64(), out),
             out && k <= EF_IDENTITY_KIND_VK_IMAGE ? 0 : EINVAL);
      break;
    case 1: {
      const FdCase *c = &p->fds[below(FD_CASES)];
      bool own = !chance(8);
      int fd = own ? c->fd : (int)any_u32();
      int rc = CALL(ef_identity_from_fd(fd, &kind, &id));
      if (own && rc != c->expected)
        FAILED("ef_identity_from_fd(%s): %d, expected %d", c->what, rc, c->expected);
      break;
    }
    case 2:
      CALL(ef_identity_from_host_ptr(chance(4) ? NULL : (const void *)(uintptr_t)any_u64(), out));
      break;
    case 3:
      name = any_u32();
      EXPECT(ef_identity_from_gl_buffer(name, out), out && name ? 0 : EINVAL);
      break;
    case 4:
      CALL(ef_identity_from_vk_image(any_u64(), out));
      break;
  }
}

static uint64_t seed;
static long random_calls = 4000;

static void phase_random(void) {
  static Pools p;
  make_fd_cases(p.fds);
  rng_state = seed ? seed : 0x9e3779b97f4a7c15ull; /* xorshift must not start at 0 */
  for (long i = 0; i < random_calls; ++i) {
    switch (below(4)) {
      case 0:
        random_identity_call(&p);
        break;
      case 1:
        random_gate_call(&p);
        break;
      case 2:
        random_ring_call(&p);
        break;
      case 3:
        random_image_call(&p);
        break;
    }
  }
  for (int i = 0; i < POOL; ++i) {
    free_image(&p.images[i]);
    ef_slot_gate_unref(p.gates[i]);
  }
  for (int i = 0; i < RINGS; ++i)
    free_ring(&p.rings[i]);
  close_fd_cases(p.fds);
  printf("random: answers 0 %ld, EINVAL %ld, EBADF %ld, ENOENT %ld, ETIMEDOUT %ld, other %ld\n",
         answers[0], answers[EINVAL], answers[EBADF], answers[ENOENT], answers[ETIMEDOUT],
         answers[ENOMEM] + answers[EIO] + answers[255]);
}

/* --- Driver ---------------------------------------------------------------- */

typedef struct Phase {
  const char *name;
  void (*run)(void);
} Phase;

static const Phase phases[] = {
    {"nulls", phase_nulls},       {"fds", phase_fds},       {"enums", phase_enums},
    {"extremes", phase_extremes}, {"random", phase_random},
};

/* In the child: the phase, then its fd and keep-alive balance. */
static int run_phase(const Phase *ph) {
  phase = ph->name;
  int before = open_fds();
  ph->run();
  int after = open_fds();
  if (after != before)
    FAILED("%d fds open before, %d after", before, after);
  check_anchors();
  return failures ? 1 : 0;
}

int main(void) {
  const char *s = getenv("EF_FUZZ_SEED");
  seed = s && *s ? strtoull(s, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
  const char *n = getenv("EF_FUZZ_CALLS");
  if (n && *n)
    random_calls = strtol(n, NULL, 0);
  printf("capi fuzz: seed %" PRIu64 " (EF_FUZZ_SEED=%" PRIu64 " repeats it), %ld random calls\n",
         seed, seed, random_calls);

  int status = 0;
  for (size_t i = 0; i < sizeof phases / sizeof phases[0]; ++i) {
    fflush(stdout);
    fflush(stderr);
    double start = now_ms();
    pid_t pid = fork();
    if (pid < 0) {
      perror("fork");
      return 1;
    }
    if (pid == 0)
      exit(run_phase(&phases[i]));
    int ws = 0;
    waitpid(pid, &ws, 0);
    if (WIFSIGNALED(ws)) {
      printf("phase %s: killed by signal %d (%s)\n", phases[i].name, WTERMSIG(ws),
             strsignal(WTERMSIG(ws)));
      status = 1;
    } else if (WEXITSTATUS(ws) != 0) {
      printf("phase %s: FAILED (exit %d)\n", phases[i].name, WEXITSTATUS(ws));
      status = 1;
    } else {
      printf("phase %s: ok (%.0f ms)\n", phases[i].name, now_ms() - start);
    }
  }
  if (status)
    printf("capi fuzz FAILED; repeat with EF_FUZZ_SEED=%" PRIu64 "\n", seed);
  return status;
}
