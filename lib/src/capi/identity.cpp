// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/identity.hpp"

#include "ef/ef.h"
#include "guard.hpp"
#include "status.hpp"

using namespace ef;
using ef::capi::fail;
using ef::capi::guarded;
using ef::capi::succeed;

namespace {

int put(const Result<BufferIdentity> &identity, uint64_t *out_id, uint32_t *out_kind = nullptr) {
  if (!identity)
    return fail(identity.error());
  *out_id = identity->id;
  if (out_kind)
    *out_kind = static_cast<uint32_t>(identity->kind);
  return succeed();
}

}  // namespace

extern "C" {

int ef_identity_derive(uint32_t kind, uint64_t key, uint64_t *out_id) {
  return guarded("ef_identity_derive", [&] {
    EF_CAPI_REQUIRE(out_id, "ef_identity_derive");
    if (kind >= kIdentityKindCount)
      return fail(EINVAL, "ef_identity_derive: kind " + std::to_string(kind) +
                              " is not an IdentityKind (0.." +
                              std::to_string(kIdentityKindCount - 1) + ")");
    *out_id = BufferIdentity::derived(static_cast<IdentityKind>(kind), key).id;
    return succeed();
  });
}

int ef_identity_from_fd(int fd, uint32_t *out_kind, uint64_t *out_id) {
  return guarded("ef_identity_from_fd", [&] {
    EF_CAPI_REQUIRE(out_kind, "ef_identity_from_fd");
    EF_CAPI_REQUIRE(out_id, "ef_identity_from_fd");
    return put(identity_from_fd(fd), out_id, out_kind);
  });
}

int ef_identity_from_host_ptr(const void *base, uint64_t *out_id) {
  return guarded("ef_identity_from_host_ptr", [&] {
    EF_CAPI_REQUIRE(out_id, "ef_identity_from_host_ptr");
    return put(identity_from_host_ptr(base), out_id);
  });
}

int ef_identity_from_gl_buffer(uint32_t name, uint64_t *out_id) {
  return guarded("ef_identity_from_gl_buffer", [&] {
    EF_CAPI_REQUIRE(out_id, "ef_identity_from_gl_buffer");
    return put(identity_from_gl_buffer(name), out_id);
  });
}

int ef_identity_from_vk_image(uint64_t image, uint64_t *out_id) {
  return guarded("ef_identity_from_vk_image", [&] {
    EF_CAPI_REQUIRE(out_id, "ef_identity_from_vk_image");
    return put(identity_from_vk_image(image), out_id);
  });
}

}  // extern "C"
