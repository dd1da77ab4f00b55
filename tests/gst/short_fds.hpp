// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames whose fd is shorter than the GstFdMemory over it claims: the file
// was truncated after the memory was made, so a plane past the cut lies
// outside anything an mmap of the fd covers (reading it is SIGBUS or
// SIGSEGV, or another mapping's bytes). Every plane before the cut is whole.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

namespace ef::test {

struct ShortFdFrame {
  GstBuffer *buffer = nullptr;  // owns its fds
  GstVideoInfo info{};          // the caps' layout (a GstVideoMeta says the same)
  guint plane = 0;              // the first plane past its fd's end
  int fd = -1;                  // that plane's fd
  const char *what = "";
};

// 0: NV12 in one memfd cut at the end of its luma plane; 1: I420 in one
// memfd cut inside its V plane; 2: NV12 in two memfds, luma whole, the
// chroma's cut in half. Odd sides and rows of strides that are not a
// multiple of 16 bytes.
inline constexpr guint kShortFdCases = 3;
ShortFdFrame short_fd_frame(guint which);

}  // namespace ef::test
