// SPDX-License-Identifier: LGPL-2.1-or-later
// The ImportSource of a frame: identities re-derived from the plane
// memories' fds (one fstat each), retained by dup'ing those fds; for system
// memory (HostPtr identities), re-derived from the allocation's base address
// and retained by a ref on the memory.
#pragma once

#include <gst/gst.h>

#include "common/frame_layout.hpp"
#include "ef/import_cache.hpp"

namespace ef::gst {

class BufferSource : public ImportSource {
 public:
  BufferSource(GstBuffer *buffer, const FrameLayout &layout, const ImportKey &key)
      : buffer_(buffer), layout_(layout), key_(key) {}

  // Re-derives with one fstat of the fd, as the kind the memory was first
  // classified as: an fd closed and reused under a live GstMemory (the
  // GStreamer 1.22.0 v4l2 bug) shows up as a mismatch.
  Result<BufferIdentity> derive_identity(uint32_t plane) const override;
  // Dup'd fds of every plane memory: the inodes stay alive with the entry.
  Retainer retain() const override;

 private:
  int fd_of(uint32_t plane) const;

  GstBuffer *buffer_;
  const FrameLayout &layout_;
  const ImportKey &key_;
};

// The key of an fd-backed frame: each plane's memory identity (derived once
// per GstMemory) plus the layout. EINVAL when a plane memory has no identity.
Result<ImportKey> frame_import_key(GstBuffer *buffer, const FrameLayout &layout);

}  // namespace ef::gst
