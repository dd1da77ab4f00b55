// SPDX-License-Identifier: LGPL-2.1-or-later
// A CPU "import" of an fd-backed frame: one read-only mapping of each fd its
// planes lie in. Kept in a retaining ImportCache like a GPU import, so a ring
// of buffers is mapped once per buffer, not once per frame (an mmap and
// munmap of a 1080p frame cost more than converting it).
#pragma once

#include <gst/gst.h>

#include <array>
#include <vector>

#include "common/frame_layout.hpp"
#include "ef/result.hpp"

namespace ef::gst {

class FdMapping {
 public:
  FdMapping() = default;
  FdMapping(FdMapping &&other) noexcept { *this = std::move(other); }
  FdMapping &operator=(FdMapping &&other) noexcept;
  FdMapping(const FdMapping &) = delete;
  FdMapping &operator=(const FdMapping &) = delete;
  ~FdMapping();

  // Maps every fd memory holding a plane of `buffer` as laid out in `layout`.
  // ESTALE, naming the plane and the fd, when a plane lies past the end of
  // its fd (a file shorter than its memory claims).
  static Result<FdMapping> create(GstBuffer *buffer, const FrameLayout &layout);

  // The first byte of plane p.
  const guint8 *plane(guint p) const { return planes_[p]; }

 private:
  struct Region {
    void *base;
    size_t length;
  };
  std::vector<Region> regions_;
  std::array<const guint8 *, GST_VIDEO_MAX_PLANES> planes_{};
};

}  // namespace ef::gst
