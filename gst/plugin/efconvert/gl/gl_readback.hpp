// SPDX-License-Identifier: LGPL-2.1-or-later
// Pipelined read-back of rendered frames into plain memory: each frame's
// glReadPixels goes into a pixel-pack buffer of its own, behind a fence, so
// the streaming thread does not wait for the GPU when it renders a frame; the
// bytes are copied into the frame's output buffer when that frame is
// completed, by which time the GPU has long finished it.
#pragma once

#include <gst/gl/gl.h>

#include <cstddef>
#include <cstdint>
#include <array>
#include <deque>
#include <span>
#include <vector>

#include "ef/result.hpp"

namespace ef::gst {

class ReadbackRing {
 public:
  // All calls on the GL thread of the context.
  explicit ReadbackRing(GstGLContext *context) : context_(context) {}
  ~ReadbackRing();  // deletes its buffers and fences: on the GL thread
  ReadbackRing(const ReadbackRing &) = delete;
  ReadbackRing &operator=(const ReadbackRing &) = delete;

  // One texture read into bytes [offset, offset + length) of the frame:
  // `width` x `rows` texels of `format`, GL_UNSIGNED_BYTE, rows packed tight.
  struct Region {
    unsigned texture, width, rows, format;
    size_t offset, length;
  };
  // Reads each region into one pack buffer of `bytes` and fences it. The
  // read follows the render in the GL stream, so the textures may be
  // rendered again at once.
  // At most one region per plane (GST_VIDEO_MAX_PLANES).
  Result<void> start(std::span<const Region> regions, size_t bytes);
  // The same into `buffer`, a pack buffer of the caller's that is the
  // output's own memory (gl_pack_memory.hpp), from byte `base` of it: the
  // frame is there once the GPU is, finish_oldest() only waits for it.
  Result<void> start_into(unsigned buffer, size_t base, std::span<const Region> regions,
                          size_t bytes);
  // Waits for the oldest read-back and copies its regions' bytes into the
  // same ranges of `dst` (at least the size given to start()); other bytes
  // of `dst` keep what they held.
  Result<void> finish_oldest(uint8_t *dst, size_t size);
  // Asks, without waiting, which read-backs the GPU has finished; those of
  // start_into() are then complete (oldest_complete()), with no GL call.
  void poll();
  // The oldest read-back went into the output and the GPU has finished it
  // (poll()): pop_complete() forgets it, from any thread the GL thread
  // hands over to (its caller), with no GL call.
  bool oldest_complete() const;
  void pop_complete();
  // Forgets every read-back in flight (a flush), once the GPU has finished
  // them; the buffers are reused.
  void drop();
  size_t in_flight() const { return flight_.size(); }

 private:
  struct Pack {
    unsigned buffer = 0;
    size_t size = 0;
    // Mapped for good where the context has buffer storage
    // (gl_pack_memory.hpp MappedPack): client storage the driver keeps in
    // cached CPU memory, which the CPU reads at memcpy speed, and no map
    // per frame.
    void *mapped = nullptr;
  };
  struct InFlight {
    Pack pack;
    void *fence = nullptr;  // a GLsync
    size_t bytes = 0;
    // Each region's offset and length: a fixed array, so a frame in
    // flight allocates nothing.
    std::array<Region, GST_VIDEO_MAX_PLANES> regions{};
    size_t n_regions = 0;
    bool into_output = false;  // start_into: nothing to copy
    bool finished = false;     // poll() saw the fence signalled (and deleted it)
  };
  Result<void> prepare(std::span<const Region> regions, size_t bytes, InFlight &frame) const;
  Result<void> read(unsigned buffer, size_t base, std::span<const Region> regions, InFlight &frame);
  Pack take_pack(size_t bytes);
  void delete_pack(Pack &pack);

  GstGLContext *context_;
  unsigned fbo_ = 0;
  std::vector<Pack> free_;
  std::deque<InFlight> flight_;
};

}  // namespace ef::gst
