// SPDX-License-Identifier: LGPL-2.1-or-later
// The rule of ef/fd_kind.hpp applied to a frame: every plane memory in fd
// memory holds a dma-buf, memfd or shared-memory file. Elements ask before
// anything else touches the frame's bytes (an import, a cached mapping, the
// copy through GStreamer's own map), and refuse the frame by the bad-frame
// rule (frame_errors) otherwise: a frame in /dev/null, a disk file, a pipe or
// a file shorter than its memory is never served, mapped or copied.
#pragma once

#include <gst/gst.h>

#include "common/frame_layout.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// EINVAL naming the first plane whose fd is not a buffer, and what the fd is:
// "plane 0's fd 0 is a character device (/dev/null), not a dma-buf, memfd or
// shared-memory file"; EBADF for a closed fd, and for a file shorter than its
// memory claims (truncated under it, or its number reused), naming the plane
// past the end where one is: "plane 1 needs bytes to 4608 but its fd 5 has
// 4096 bytes where its memory has 4608: ...". Costs one fstat a memory for a
// memory whose fd was classified before and still names the same inode.
Result<void> check_frame_fds(GstBuffer *buffer, const FrameLayout &layout);

}  // namespace ef::gst
