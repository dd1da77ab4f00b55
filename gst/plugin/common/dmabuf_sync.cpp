// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dmabuf_sync.hpp"

#include <gst/allocators/allocators.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>

#include <cerrno>

namespace ef::gst {

DmaBufCpuAccess::DmaBufCpuAccess(GstBuffer *buffer, bool write)
    : direction_(write ? DMA_BUF_SYNC_WRITE : DMA_BUF_SYNC_READ) {
  for (guint i = 0; i < gst_buffer_n_memory(buffer) && n_ < G_N_ELEMENTS(fds_); ++i) {
    GstMemory *mem = gst_buffer_peek_memory(buffer, i);
    if (gst_is_dmabuf_memory(mem))
      fds_[n_++] = gst_dmabuf_memory_get_fd(mem);
  }
  sync(DMA_BUF_SYNC_START);
}

DmaBufCpuAccess::~DmaBufCpuAccess() {
  sync(DMA_BUF_SYNC_END);
}

void DmaBufCpuAccess::sync(unsigned long flags) {
  for (unsigned i = 0; i < n_; ++i) {
    struct dma_buf_sync s = {flags | direction_};
    while (ioctl(fds_[i], DMA_BUF_IOCTL_SYNC, &s) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace ef::gst
