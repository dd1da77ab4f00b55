// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames whose fd is shorter than the GstFdMemory over it claims: the file
// was truncated after the memory was made, so a plane past the cut lies
// outside anything an mmap of the fd covers (reading it is SIGBUS or
// SIGSEGV, or another mapping's bytes). Every plane before the cut is whole.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>

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

// A frame of `info` in one GstFdMemory of info.size bytes over a new memfd
// that holds only `file_bytes` of them (the pattern of `seed`), with its
// video meta: a memory that claims more than its file holds.
GstBuffer *short_memfd_frame(const GstVideoInfo &info, gsize file_bytes, uint32_t seed);

// Every element that reads or imports fds, seen from outside: short memfd
// frames of `info` (0 bytes, and cut at the last page boundary before the
// end: 4096 of NV12 64x48's 4608 bytes) pushed into `h`, whose element
// `element` takes them. At max-errors 0 each fails with an ERROR naming the
// plane past the cut, the fd and its length ("plane 1 needs bytes to 4608
// but its fd 9 has 4096 bytes"), at max-errors 1 it is dropped with that
// WARNING; nothing comes out. After each, `good(seed)` pushes a good frame
// and checks what comes out. A SIGBUS fails the test's own child process.
void expect_short_fds_refused(GstHarness *h, GstElement *element, const GstVideoInfo &info,
                              const std::function<void(uint32_t seed)> &good);

// The same for efconvert with `props` (its backend) from NV12 64x48 in a
// memfd to `out_caps` (an image or a tensor): each good frame's output is
// byte for byte a fresh element's of the same frame.
void expect_convert_short_fds_refused(const char *props, const char *out_caps);

}  // namespace ef::test
