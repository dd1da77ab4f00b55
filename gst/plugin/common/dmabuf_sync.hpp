// SPDX-License-Identifier: LGPL-2.1-or-later
// CPU access to dma-buf memory, bracketed with DMA_BUF_IOCTL_SYNC.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// Brackets CPU access to a buffer's dma-buf memories with DMA_BUF_IOCTL_SYNC
// so caches are coherent (GStreamer 1.22's dma-buf memory does not). A no-op
// for memories that are not dma-bufs, and harmless on memfds typed as
// dma-buf memory (the ioctl fails with ENOTTY: nothing to keep coherent).
class DmaBufCpuAccess {
 public:
  DmaBufCpuAccess(GstBuffer *buffer, bool write);
  ~DmaBufCpuAccess();
  DmaBufCpuAccess(const DmaBufCpuAccess &) = delete;
  DmaBufCpuAccess &operator=(const DmaBufCpuAccess &) = delete;

 private:
  void sync(unsigned long flags);
  int fds_[16];
  unsigned n_ = 0;
  unsigned long direction_;
};

}  // namespace ef::gst
