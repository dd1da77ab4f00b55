// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_fds.hpp"

#include <gst/allocators/allocators.h>
#include <gst/ef/gstefidentity.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "ef/fd_kind.hpp"
#include "ef/identity.hpp"

namespace ef::gst {

namespace {

// A memory whose identity was derived (once, kept on the memory) is a
// dma-buf, memfd or shm file by that derivation's own rule (which gives no
// identity to a pre-5.3 dma-buf, whose size is unknown); while its fd still
// names that inode, the fstat already made says so again.
bool classified_before(GstMemory *mem, const struct stat &st) {
  GstEfIdentity identity;
  if (!gst_ef_memory_get_identity(mem, &identity, nullptr))
    return false;
  const auto kind = IdentityKind(identity.kind);
  return (kind == IdentityKind::DmaBuf || kind == IdentityKind::Shm) &&
         identity.id == inode_key(uint64_t(st.st_dev), uint64_t(st.st_ino));
}

// The planes of one memory (NV12 in one fd) are one file: one fstat.
std::optional<guint> first_plane_of(GstBuffer *buffer, const FrameLayout &layout, guint plane) {
  GstMemory *mem = gst_buffer_peek_memory(buffer, layout.planes[plane].memory);
  for (guint q = 0; q < plane; ++q)
    if (gst_buffer_peek_memory(buffer, layout.planes[q].memory) == mem)
      return q;
  return std::nullopt;
}

// What one plane's fd is, once per memory.
struct PlaneFd {
  int fd = -1;
  struct stat st {};
  bool size_known = false;  // a pre-5.3 dma-buf's fstat says 0 bytes, whatever it holds
};

Result<PlaneFd> examine(GstMemory *mem, guint plane) {
  PlaneFd f;
  f.fd = gst_fd_memory_get_fd(mem);
  if (f.fd < 0 || fstat(f.fd, &f.st) != 0) {
    const int err = f.fd < 0 ? EBADF : errno;
    return Error{err, "plane " + std::to_string(plane) + ": its fd " + std::to_string(f.fd) +
                          " was closed before the frame arrived: " + std::strerror(err)};
  }
  if (classified_before(mem, f.st)) {
    f.size_known = true;
    return f;
  }
  // Not classified, or its fd names another file now: the whole rule.
  auto kind = buffer_fd_kind(f.fd);
  if (!kind)
    return Error{kind.error().code,
                 "plane " + std::to_string(plane) + "'s " + kind.error().message};
  f.size_known = *kind != FdKind::SharedDmaBuf;
  return f;
}

// Whether the file is as long as the allocation its memory maps (from
// offset 0, as GstFdMemory does). A file truncated under its memory, or an
// fd closed and its number now naming a shorter file (our own output pool's,
// the next memfd anyone makes), is refused: a copy through the memory's map
// or an import would read past the file's end (SIGBUS) or another file's
// bytes. The refusal names the plane that lies past the end where one does
// (the one a reader would fault on), else the first plane of that memory.
// A longer file under a reused number is caught by the identity check, where
// the memory's identity was taken while its fd was still its own.
struct ShortFile {
  Error error;
  bool plane_past_end;
};

std::optional<ShortFile> short_file(GstBuffer *buffer, const FrameLayout &layout, guint plane,
                                    const PlaneFd &f) {
  GstMemory *root = gst_buffer_peek_memory(buffer, layout.planes[plane].memory);
  while (root->parent)
    root = root->parent;
  if (!f.size_known || f.st.st_size >= off_t(root->maxsize))
    return std::nullopt;
  const gsize end = layout.planes[plane].offset + layout.planes[plane].size;
  const std::string why = "fd " + std::to_string(f.fd) + " has " + std::to_string(f.st.st_size) +
                          " bytes where its memory has " + std::to_string(root->maxsize) +
                          ": the file was truncated, or the fd closed and its number reused";
  if (end > gsize(f.st.st_size))
    return ShortFile{Error{EBADF, "plane " + std::to_string(plane) + " needs bytes to " +
                                      std::to_string(end) + " but its " + why},
                     true};
  return ShortFile{Error{EBADF, "plane " + std::to_string(plane) + ": its " + why}, false};
}

}  // namespace

Result<void> check_frame_fds(GstBuffer *buffer, const FrameLayout &layout) {
  std::array<PlaneFd, GST_VIDEO_MAX_PLANES> fds{};
  std::optional<Error> short_memory;  // a memory longer than its fd, this plane inside it
  for (guint p = 0; p < layout.n_planes; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, layout.planes[p].memory);
    if (!gst_is_fd_memory(mem))
      continue;
    if (auto q = first_plane_of(buffer, layout, p)) {
      fds[p] = fds[*q];
    } else {
      auto examined = examine(mem, p);
      if (!examined)
        return examined.error();
      fds[p] = *examined;
    }
    // Every plane, not only the first of its fd: NV12's chroma follows the
    // luma in the same fd, and may be the one past the end.
    if (auto problem = short_file(buffer, layout, p, fds[p])) {
      if (problem->plane_past_end)
        return problem->error;
      if (!short_memory)
        short_memory = problem->error;
    }
  }
  if (short_memory)
    return *short_memory;
  return {};
}

}  // namespace ef::gst
