/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ef C ABI. Compiles as C11 and as C++17 or later.
 *
 * Rules (docs/ARCHITECTURE.md, "The C ABI"):
 *  - Every function returns 0 or an errno value (EINVAL, EBADF, ENOENT,
 *    ETIMEDOUT, ENOMEM, ...) and, on failure, sets a thread-local message read
 *    with ef_last_error(). No C++ exception ever leaves an ef_* function: an
 *    allocation failure is ENOMEM, any other internal failure an errno (EIO
 *    when none fits), each with its message. Functions returning void or a
 *    pointer cannot fail.
 *  - Timeouts are uint64_t nanoseconds. Any value of INT64_MAX or more
 *    (EF_TIMEOUT_FOREVER, UINT64_MAX) waits forever; 0 only checks.
 *  - Sizes of 0 describe no buffer and are refused (EINVAL) where they are
 *    stored or imported: a memfd or shm file of size 0, a VkImage side of 0.
 *  - Enums cross as uint32_t and are validated; an unknown value is EINVAL.
 *  - Structs are frozen by value: there is no struct_size handshake. A struct
 *    grows only by a major version bump or a suffixed successor (_v2).
 */
#ifndef EF_H
#define EF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Client-owned state a library entry point calls back into. Frozen forever:
 * 24 bytes on LP64, offsets 0/8/16 (tests/c/test_layout_goldens.c).
 * retain/release extend the life of the callback channel only; they never
 * transfer ownership of what ctx addresses. An entry point that stores the
 * struct calls retain(ctx) once, and release(ctx) exactly once when the object
 * holding it dies. NULL retain or release is EINVAL. */
typedef struct EfClientState {
  const void *ctx;
  void (*retain)(const void *ctx);
  void (*release)(const void *ctx);
} EfClientState;

/* IdentityKind: pinned values, never renumbered. */
#define EF_IDENTITY_KIND_DMA_BUF 0u
#define EF_IDENTITY_KIND_SHM 1u
#define EF_IDENTITY_KIND_IO_SURFACE 2u
#define EF_IDENTITY_KIND_AHARDWARE_BUFFER_ID 3u
#define EF_IDENTITY_KIND_AHARDWARE_BUFFER_PTR 4u
#define EF_IDENTITY_KIND_D3D11_TEXTURE 5u
#define EF_IDENTITY_KIND_HOST_PTR 6u
#define EF_IDENTITY_KIND_PBO 7u
#define EF_IDENTITY_KIND_VK_IMAGE 8u

/* PixelFormat and PlaneFormat of a VkImage. */
#define EF_PIXEL_FORMAT_RGBA8 1u
#define EF_PIXEL_FORMAT_BGRA8 2u
#define EF_PIXEL_FORMAT_RGBX8 3u
#define EF_PIXEL_FORMAT_BGRX8 4u
#define EF_PIXEL_FORMAT_RGB8 5u
#define EF_PIXEL_FORMAT_GRAY8 6u
#define EF_PIXEL_FORMAT_NV12 7u
#define EF_PIXEL_FORMAT_I420 8u
#define EF_PIXEL_FORMAT_YUYV 9u

#define EF_PLANE_FORMAT_R8 1u
#define EF_PLANE_FORMAT_RG8 2u
#define EF_PLANE_FORMAT_RGBA8 3u
#define EF_PLANE_FORMAT_R16 4u

/* Wait without a deadline (any timeout >= INT64_MAX ns does). */
#define EF_TIMEOUT_FOREVER UINT64_MAX

/* The most slots an EfSlotRing has; more is EINVAL. */
#define EF_SLOT_RING_MAX_SLOTS 4096u

/* The message of the last failure on this thread; "" if none. Valid until the
 * next ef_* call on this thread. */
const char *ef_last_error(void);

/* --- Identities ---------------------------------------------------------- */

/* id = (kind << 56) ^ key. EINVAL for an unknown kind or NULL out_id. */
int ef_identity_derive(uint32_t kind, uint64_t key, uint64_t *out_id);
/* DmaBuf (dma-buf, memfd) or Shm (POSIX shm) from one fstat. EBADF for a
 * closed fd; EINVAL for any other kind of file, for a memfd or shm file of
 * size 0 and for a pre-5.3 dma-buf. */
int ef_identity_from_fd(int fd, uint32_t *out_kind, uint64_t *out_id);
/* HostPtr from a mapping's base address; EINVAL for NULL. */
int ef_identity_from_host_ptr(const void *base, uint64_t *out_id);
/* Pbo from a GL buffer name; EINVAL for 0. */
int ef_identity_from_gl_buffer(uint32_t name, uint64_t *out_id);
/* VkImage from a handle; EINVAL for 0. */
int ef_identity_from_vk_image(uint64_t image, uint64_t *out_id);

/* --- Slot-release gates -------------------------------------------------- */

typedef struct EfSlotGate EfSlotGate; /* reference counted */
typedef struct EfSlotRing EfSlotRing;

int ef_slot_gate_new(uint64_t initial, EfSlotGate **out_gate);
EfSlotGate *ef_slot_gate_ref(EfSlotGate *gate);
void ef_slot_gate_unref(EfSlotGate *gate);
/* Consumer side: store value (release ordering) and wake the producer. */
int ef_slot_gate_arm(EfSlotGate *gate, uint64_t value);
int ef_slot_gate_value(const EfSlotGate *gate, uint64_t *out_value);
/* Blocks without spinning until the gate reaches expected; ETIMEDOUT after
 * timeout_ns, with a message naming expected and observed values.
 * EF_TIMEOUT_FOREVER (any timeout_ns >= INT64_MAX) waits forever. */
int ef_slot_gate_wait(const EfSlotGate *gate, uint64_t expected, uint64_t timeout_ns);

/* Producer side: a ring of slots, one gate each. EINVAL for 0 slots or more
 * than EF_SLOT_RING_MAX_SLOTS. */
int ef_slot_ring_new(uint32_t slots, EfSlotRing **out_ring);
void ef_slot_ring_free(EfSlotRing *ring);
/* Waits until the slot's last use is released (ETIMEDOUT names the slot;
 * EF_TIMEOUT_FOREVER waits forever), then starts a new use: *out_gate (a new
 * reference) and *out_value are what the consumer must arm when it is done
 * with the slot. A failed call starts no use. */
int ef_slot_ring_acquire(EfSlotRing *ring, uint32_t slot, uint64_t timeout_ns,
                         EfSlotGate **out_gate, uint64_t *out_value);

/* --- VkImage ------------------------------------------------------------- */

typedef struct EfVkImage EfVkImage;

/* Wraps a borrowed VkImage. image 0 is EINVAL ("null handle"). uuid may be
 * NULL (no cross-adapter identity). keep_alive may be NULL; when given, both
 * callbacks must be set (else EINVAL) and retain is called once now; release
 * is called once when the last copy of the wrapper is freed. */
int ef_vk_image_wrap(uint64_t image, void *device, void *instance, void *phys_dev,
                     const uint8_t *uuid16, uint32_t row_pitch, const EfClientState *keep_alive,
                     EfVkImage **out_image);
/* A copy sharing the keep-alive. */
int ef_vk_image_copy(const EfVkImage *image, EfVkImage **out_copy);
void ef_vk_image_free(EfVkImage *image);

/* EINVAL when width or height is 0. */
int ef_vk_image_set_dimensions(EfVkImage *image, uint32_t width, uint32_t height);
int ef_vk_image_set_format(EfVkImage *image, uint32_t pixel_format);
int ef_vk_image_set_plane_format(EfVkImage *image, uint32_t plane_format);
/* Stamps the slot-release gate the consumer arms with value. */
int ef_vk_image_set_acquire_release(EfVkImage *image, EfSlotGate *gate, uint64_t value);

int ef_vk_image_get_handle(const EfVkImage *image, uint64_t *out_handle);
int ef_vk_image_get_dimensions(const EfVkImage *image, uint32_t *out_width, uint32_t *out_height);
int ef_vk_image_get_row_pitch(const EfVkImage *image, uint32_t *out_row_pitch);
/* ENOENT when unset. */
int ef_vk_image_get_format(const EfVkImage *image, uint32_t *out_pixel_format);
int ef_vk_image_get_uuid(const EfVkImage *image, uint8_t out_uuid16[16]);
/* ENOENT when unset. */
int ef_vk_image_get_plane_format(const EfVkImage *image, uint32_t *out_plane_format);
/* The stamped gate (a new reference: unref it) and the value that arms it;
 * ENOENT when none was stamped. */
int ef_vk_image_get_acquire_release(const EfVkImage *image, EfSlotGate **out_gate,
                                    uint64_t *out_value);
/* Arms the image's acquire_release gate; ENOENT when none was stamped. */
int ef_vk_image_release_slot(const EfVkImage *image);
/* Arms it later, on a waiter thread, once GPU work has retired: when fence
 * (a VkFence of device, already submitted) is signalled, or when the timeline
 * semaphore reaches value. The waiter is done with the fence or semaphore
 * once the gate reads the value (ef_vk_image_get_acquire_release, then
 * ef_slot_gate_wait): only then may it be reset or destroyed. ENOENT when no
 * gate was stamped; EINVAL for a NULL device or handle; ENOTSUP when ef was
 * built without Vulkan. A wait that fails (device lost) still arms. */
int ef_vk_image_release_after_fence(const EfVkImage *image, void *device, uint64_t fence);
int ef_vk_image_release_after_timeline(const EfVkImage *image, void *device, uint64_t semaphore,
                                       uint64_t value);

#ifdef __cplusplus
}
#endif

#endif /* EF_H */
