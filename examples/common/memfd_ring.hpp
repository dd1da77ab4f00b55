// SPDX-License-Identifier: LGPL-2.1-or-later
// A producer's ring of memfd-backed video frames for appsrc, shared by the
// memfd-ring demo and tests/bench/bench_upload.
//
// Every frame is a GstDmaBufMemory over a slot's memfd: stock glupload imports
// only GstDmaBufMemory (a GstFdMemory it uploads by copy), and efupload
// accepts both, so this is the one input on which the two can be compared.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ef::examples {

// How the producer hands a slot to appsrc.
enum class Wrap {
  // The same GstBuffer (and so the same GstMemory) every time the slot comes
  // round, as a GstBufferPool does.
  Stable,
  // A new GstBuffer and GstDmaBufMemory around a dup of the slot's fd for
  // every frame, as applications do that receive fds from a camera, another
  // process or a library that knows nothing of GStreamer.
  Rewrap,
};

const char *wrap_name(Wrap wrap);

class MemfdRing {
 public:
  // `slots` memfds of info.size bytes, each with its own still picture.
  // error() says why not when the ring could not be made.
  MemfdRing(const GstVideoInfo &info, guint slots);
  ~MemfdRing();
  MemfdRing(const MemfdRing &) = delete;
  MemfdRing &operator=(const MemfdRing &) = delete;

  const std::string &error() const { return error_; }
  const GstVideoInfo &info() const { return info_; }
  guint slots() const { return guint(fds_.size()); }

  // Frame `n` of the stream, in slot n % slots (a new reference). The bytes
  // are written once, when the ring is made: rewriting a 1080p slot per
  // frame is the producer's cost and would only add the same amount to
  // every element compared.
  GstBuffer *frame(uint64_t n, Wrap wrap);

  // video/x-raw(memory:DMABuf) of info(): format=DMA_DRM with its drm-format
  // on GStreamer 1.24 and later, the video format itself before.
  GstCaps *caps() const;

 private:
  GstBuffer *wrap_fd(int fd) const;

  GstVideoInfo info_;
  GstAllocator *dmabuf_ = nullptr;
  std::vector<int> fds_;
  std::vector<GstBuffer *> stable_;
  std::string error_;
};

}  // namespace ef::examples
