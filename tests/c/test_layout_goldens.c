/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Frozen ABI layouts. Compiled as C11 and, through test_layout_goldens.cpp, as
 * C++: a changed size or offset fails the build in both languages. */
#include <stddef.h>
#include <stdio.h>

#include "ef/ef.h"

#ifdef __cplusplus
#define EF_STATIC_ASSERT static_assert
#else
#define EF_STATIC_ASSERT _Static_assert
#endif

EF_STATIC_ASSERT(sizeof(EfClientState) == 24, "EfClientState is 24 bytes");
EF_STATIC_ASSERT(_Alignof(EfClientState) == 8, "EfClientState is 8-aligned");
EF_STATIC_ASSERT(offsetof(EfClientState, ctx) == 0, "ctx at 0");
EF_STATIC_ASSERT(offsetof(EfClientState, retain) == 8, "retain at 8");
EF_STATIC_ASSERT(offsetof(EfClientState, release) == 16, "release at 16");

/* Pinned enum values cross the ABI as uint32_t. */
EF_STATIC_ASSERT(EF_IDENTITY_KIND_DMA_BUF == 0 && EF_IDENTITY_KIND_SHM == 1 &&
                     EF_IDENTITY_KIND_IO_SURFACE == 2 &&
                     EF_IDENTITY_KIND_AHARDWARE_BUFFER_ID == 3 &&
                     EF_IDENTITY_KIND_AHARDWARE_BUFFER_PTR == 4 &&
                     EF_IDENTITY_KIND_D3D11_TEXTURE == 5 && EF_IDENTITY_KIND_HOST_PTR == 6 &&
                     EF_IDENTITY_KIND_PBO == 7 && EF_IDENTITY_KIND_VK_IMAGE == 8,
                 "IdentityKind values are pinned");

int main(void) {
  /* Runtime echo of the same facts, so the log shows what was pinned. */
  printf("EfClientState: size %zu, offsets %zu/%zu/%zu\n", sizeof(EfClientState),
         offsetof(EfClientState, ctx), offsetof(EfClientState, retain),
         offsetof(EfClientState, release));
  return sizeof(EfClientState) == 24 ? 0 : 1;
}
