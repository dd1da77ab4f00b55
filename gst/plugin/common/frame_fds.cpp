// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_fds.hpp"

#include <gst/allocators/allocators.h>
#include <gst/ef/gstefidentity.h>

#include <string>

#include "ef/fd_kind.hpp"
#include "ef/identity.hpp"

namespace ef::gst {

namespace {

// A memory whose identity was derived (once, kept on the memory) is a
// dma-buf, memfd or shm file by that derivation's own rule; while its fd
// still names that inode, one fstat says so again.
bool classified_before(GstMemory *mem, int fd) {
  GstEfIdentity identity;
  if (!gst_ef_memory_get_identity(mem, &identity, nullptr))
    return false;
  const auto kind = IdentityKind(identity.kind);
  if (kind != IdentityKind::DmaBuf && kind != IdentityKind::Shm)
    return false;
  auto now = rederive_fd_identity(fd, kind);
  return now && now->id == identity.id;
}

// The planes of one memory (NV12 in one fd) are one file: one fstat.
bool checked_before(GstBuffer *buffer, const FrameLayout &layout, guint plane, GstMemory *mem) {
  for (guint q = 0; q < plane; ++q)
    if (gst_buffer_peek_memory(buffer, layout.planes[q].memory) == mem)
      return true;
  return false;
}

}  // namespace

Result<void> check_frame_fds(GstBuffer *buffer, const FrameLayout &layout) {
  for (guint p = 0; p < layout.n_planes; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, layout.planes[p].memory);
    if (!gst_is_fd_memory(mem) || checked_before(buffer, layout, p, mem))
      continue;
    const int fd = gst_fd_memory_get_fd(mem);
    if (classified_before(mem, fd))
      continue;
    // Not classified, or its fd names another file now: the whole rule.
    if (auto kind = buffer_fd_kind(fd); !kind)
      return Error{kind.error().code, "plane " + std::to_string(p) + "'s " + kind.error().message};
  }
  return {};
}

}  // namespace ef::gst
