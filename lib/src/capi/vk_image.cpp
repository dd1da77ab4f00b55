// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/vk_image.hpp"
#ifdef EF_HAVE_VULKAN
#include "ef/vk_release_waiter.hpp"
#endif

#include <cstring>

#include "ef/ef.h"
#include "guard.hpp"
#include "slot_gate.hpp"
#include "status.hpp"

using namespace ef;
using ef::capi::fail;
using ef::capi::guarded;
using ef::capi::succeed;

struct EfVkImage {
  VkImage image;
};

EfVkImage *ef::vk_image_to_c(VkImage image) {
  return new EfVkImage{std::move(image)};
}

const VkImage *ef::vk_image_from_c(const EfVkImage *image) {
  return image ? &image->image : nullptr;
}

extern "C" {

int ef_vk_image_wrap(uint64_t image, void *device, void *instance, void *phys_dev,
                     const uint8_t *uuid16, uint32_t row_pitch, const EfClientState *keep_alive,
                     EfVkImage **out_image) {
  return guarded("ef_vk_image_wrap", [&] {
    EF_CAPI_REQUIRE(out_image, "ef_vk_image_wrap");
    if (image == 0)
      return fail(EINVAL, "ef_vk_image_wrap: null handle (VkImage 0)");
    std::optional<DeviceUuid> uuid;
    if (uuid16) {
      uuid.emplace();
      std::memcpy(uuid->data(), uuid16, uuid->size());
    }
    std::optional<KeepAlive> anchor;
    if (keep_alive) {
      auto made = KeepAlive::from_client_state(*keep_alive);
      if (!made)
        return fail(EINVAL, "ef_vk_image_wrap: " + made.error().message);
      anchor = std::move(made).value();
    }
    auto wrapped = VkImage::try_from_raw(image, device, instance, phys_dev, uuid, row_pitch,
                                         std::move(anchor));
    if (!wrapped)
      return fail(wrapped.error());
    *out_image = new EfVkImage{std::move(wrapped).value()};
    return succeed();
  });
}

int ef_vk_image_copy(const EfVkImage *image, EfVkImage **out_copy) {
  return guarded("ef_vk_image_copy", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_copy");
    EF_CAPI_REQUIRE(out_copy, "ef_vk_image_copy");
    *out_copy = new EfVkImage{image->image};
    return succeed();
  });
}

void ef_vk_image_free(EfVkImage *image) {
  guarded("ef_vk_image_free", [&] { delete image; });
}

int ef_vk_image_set_dimensions(EfVkImage *image, uint32_t width, uint32_t height) {
  return guarded("ef_vk_image_set_dimensions", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_set_dimensions");
    // A side of 0 describes no pixels: every importer refuses it, so it is
    // refused where it is stored rather than at an import far away.
    if (width == 0 || height == 0)
      return fail(EINVAL, "ef_vk_image_set_dimensions: " + std::to_string(width) + "x" +
                              std::to_string(height) + " has a side of 0");
    image->image = image->image.with_dimensions(width, height);
    return succeed();
  });
}

int ef_vk_image_set_format(EfVkImage *image, uint32_t pixel_format) {
  return guarded("ef_vk_image_set_format", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_set_format");
    if (pixel_format == 0 || pixel_format > kPixelFormatMax)
      return fail(EINVAL, "ef_vk_image_set_format: " + std::to_string(pixel_format) +
                              " is not an EF_PIXEL_FORMAT_* value");
    image->image = image->image.with_format(static_cast<PixelFormat>(pixel_format));
    return succeed();
  });
}

int ef_vk_image_set_plane_format(EfVkImage *image, uint32_t plane_format) {
  return guarded("ef_vk_image_set_plane_format", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_set_plane_format");
    if (plane_format == 0 || plane_format > kPlaneFormatMax)
      return fail(EINVAL, "ef_vk_image_set_plane_format: " + std::to_string(plane_format) +
                              " is not an EF_PLANE_FORMAT_* value");
    image->image = image->image.with_plane_format(static_cast<PlaneFormat>(plane_format));
    return succeed();
  });
}

int ef_vk_image_set_acquire_release(EfVkImage *image, EfSlotGate *gate, uint64_t value) {
  return guarded("ef_vk_image_set_acquire_release", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_set_acquire_release");
    EF_CAPI_REQUIRE(gate, "ef_vk_image_set_acquire_release");
    image->image = image->image.with_acquire_release(SlotRelease(gate->gate, value));
    return succeed();
  });
}

int ef_vk_image_get_handle(const EfVkImage *image, uint64_t *out_handle) {
  return guarded("ef_vk_image_get_handle", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_handle");
    EF_CAPI_REQUIRE(out_handle, "ef_vk_image_get_handle");
    *out_handle = image->image.image();
    return succeed();
  });
}

int ef_vk_image_get_dimensions(const EfVkImage *image, uint32_t *out_width, uint32_t *out_height) {
  return guarded("ef_vk_image_get_dimensions", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_dimensions");
    EF_CAPI_REQUIRE(out_width, "ef_vk_image_get_dimensions");
    EF_CAPI_REQUIRE(out_height, "ef_vk_image_get_dimensions");
    *out_width = image->image.width();
    *out_height = image->image.height();
    return succeed();
  });
}

int ef_vk_image_get_row_pitch(const EfVkImage *image, uint32_t *out_row_pitch) {
  return guarded("ef_vk_image_get_row_pitch", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_row_pitch");
    EF_CAPI_REQUIRE(out_row_pitch, "ef_vk_image_get_row_pitch");
    *out_row_pitch = image->image.row_pitch();
    return succeed();
  });
}

int ef_vk_image_get_format(const EfVkImage *image, uint32_t *out_pixel_format) {
  return guarded("ef_vk_image_get_format", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_format");
    EF_CAPI_REQUIRE(out_pixel_format, "ef_vk_image_get_format");
    if (!image->image.format())
      return fail(ENOENT, "ef_vk_image_get_format: no format was stamped");
    *out_pixel_format = static_cast<uint32_t>(*image->image.format());
    return succeed();
  });
}

int ef_vk_image_get_uuid(const EfVkImage *image, uint8_t out_uuid16[16]) {
  return guarded("ef_vk_image_get_uuid", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_uuid");
    EF_CAPI_REQUIRE(out_uuid16, "ef_vk_image_get_uuid");
    if (!image->image.uuid())
      return fail(ENOENT, "ef_vk_image_get_uuid: the image carries no device uuid");
    std::memcpy(out_uuid16, image->image.uuid()->data(), 16);
    return succeed();
  });
}

int ef_vk_image_get_plane_format(const EfVkImage *image, uint32_t *out_plane_format) {
  return guarded("ef_vk_image_get_plane_format", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_plane_format");
    EF_CAPI_REQUIRE(out_plane_format, "ef_vk_image_get_plane_format");
    if (!image->image.plane_format())
      return fail(ENOENT, "ef_vk_image_get_plane_format: no plane format was stamped");
    *out_plane_format = static_cast<uint32_t>(*image->image.plane_format());
    return succeed();
  });
}

int ef_vk_image_get_acquire_release(const EfVkImage *image, EfSlotGate **out_gate,
                                    uint64_t *out_value) {
  return guarded("ef_vk_image_get_acquire_release", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_get_acquire_release");
    EF_CAPI_REQUIRE(out_gate, "ef_vk_image_get_acquire_release");
    EF_CAPI_REQUIRE(out_value, "ef_vk_image_get_acquire_release");
    if (!image->image.acquire_release())
      return fail(ENOENT, "ef_vk_image_get_acquire_release: no slot-release gate was stamped");
    *out_gate = new EfSlotGate{image->image.acquire_release()->gate(), {1}};
    *out_value = image->image.acquire_release()->value();
    return succeed();
  });
}

int ef_vk_image_release_slot(const EfVkImage *image) {
  return guarded("ef_vk_image_release_slot", [&] {
    EF_CAPI_REQUIRE(image, "ef_vk_image_release_slot");
    if (!image->image.acquire_release())
      return fail(ENOENT, "ef_vk_image_release_slot: no slot-release gate was stamped");
    image->image.acquire_release()->arm();
    return succeed();
  });
}

namespace {

// The gate to arm later, or the failure to report.
int release_of(const EfVkImage *image, const char *fn, std::optional<SlotRelease> &out) {
  if (!image)
    return fail(EINVAL, std::string(fn) + ": image is NULL");
  if (!image->image.acquire_release())
    return fail(ENOENT, std::string(fn) + ": no slot-release gate was stamped");
  out = *image->image.acquire_release();
  return 0;
}

int queued(Result<void> result) {
  return result ? succeed() : fail(result.error());
}

}  // namespace

int ef_vk_image_release_after_fence(const EfVkImage *image, void *device, uint64_t fence) {
  return guarded("ef_vk_image_release_after_fence", [&] {
    std::optional<SlotRelease> release;
    if (int rc = release_of(image, "ef_vk_image_release_after_fence", release))
      return rc;
#ifdef EF_HAVE_VULKAN
    return queued(VkReleaseWaiter::shared().arm_after_fence(device, fence, *release));
#else
    (void)device, (void)fence;
    return fail(ENOTSUP, "ef_vk_image_release_after_fence: ef was built without Vulkan");
#endif
  });
}

int ef_vk_image_release_after_timeline(const EfVkImage *image, void *device, uint64_t semaphore,
                                       uint64_t value) {
  return guarded("ef_vk_image_release_after_timeline", [&] {
    std::optional<SlotRelease> release;
    if (int rc = release_of(image, "ef_vk_image_release_after_timeline", release))
      return rc;
#ifdef EF_HAVE_VULKAN
    return queued(VkReleaseWaiter::shared().arm_after_timeline(device, semaphore, value, *release));
#else
    (void)device, (void)semaphore, (void)value;
    return fail(ENOTSUP, "ef_vk_image_release_after_timeline: ef was built without Vulkan");
#endif
  });
}

}  // extern "C"
