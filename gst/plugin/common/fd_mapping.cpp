// SPDX-License-Identifier: LGPL-2.1-or-later
#include "fd_mapping.hpp"

#include <gst/allocators/allocators.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ef::gst {

FdMapping &FdMapping::operator=(FdMapping &&other) noexcept {
  std::swap(regions_, other.regions_);
  std::swap(planes_, other.planes_);
  return *this;
}

FdMapping::~FdMapping() {
  for (const Region &r : regions_)
    munmap(r.base, r.length);
}

Result<FdMapping> FdMapping::create(GstBuffer *buffer, const FrameLayout &layout) {
  FdMapping mapping;
  std::array<int, GST_VIDEO_MAX_PLANES> mapped_fd{};
  std::array<const guint8 *, GST_VIDEO_MAX_PLANES> base{};
  guint n = 0;
  for (guint p = 0; p < layout.n_planes; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, layout.planes[p].memory);
    if (!gst_is_fd_memory(mem))
      return Error{EINVAL, "plane " + std::to_string(p) + " is not in fd memory"};
    const int fd = gst_fd_memory_get_fd(mem);
    guint i = 0;
    while (i < n && mapped_fd[i] != fd)
      ++i;
    if (i == n) {
      struct stat st;
      if (fstat(fd, &st) != 0 || st.st_size <= 0)
        return Error{EBADF, "cannot size fd " + std::to_string(fd)};
      void *addr = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
      if (addr == MAP_FAILED)
        return Error{errno, std::string("mmap of the input failed: ") + std::strerror(errno)};
      mapping.regions_.push_back({addr, size_t(st.st_size)});
      mapped_fd[n] = fd;
      base[n++] = static_cast<const guint8 *>(addr);
    }
    // Every plane, not only the first of its fd: NV12's chroma follows the
    // luma in the same fd. ESTALE, as an identity refusal: the fd no longer
    // holds what its memory claims (truncated, or its number reused), and
    // the frame is refused, not read through the memory's own map instead.
    const gsize end = layout.planes[p].offset + layout.planes[p].size;
    if (end > mapping.regions_[i].length)
      return Error{ESTALE, "plane " + std::to_string(p) + " needs bytes to " + std::to_string(end) +
                               " of fd " + std::to_string(fd) + ", which holds " +
                               std::to_string(mapping.regions_[i].length)};
    mapping.planes_[p] = base[i] + layout.planes[p].offset;
  }
  return mapping;
}

}  // namespace ef::gst
