// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames the GPU has not finished yet, oldest first: read-backs of rendered
// frames into plain memory (each frame's glReadPixels into a pixel-pack
// buffer of its own, or into the output's own pack memory, behind a fence)
// and frames rendered in place into the output's memory (a fence alone).
// The streaming thread does not wait for the GPU when it renders a frame;
// it waits when the frame is completed, frames later, by which time the GPU
// has long finished it. Where fences may be waited for on any thread
// (gl_fence.hpp), completing a frame needs no GL thread: the thread that
// needs the frame waits, and copies out of a pack buffer mapped for good.
#pragma once

#include <gst/gl/gl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/fifo.hpp"
#include "ef/result.hpp"
#include "gl_fence.hpp"

namespace ef::gst {

class ReadbackRing {
 public:
  // Made, started and dropped on the GL thread of the context; the calls
  // marked "any thread" need no GL and are made by the one thread that
  // hands this ring's work to the GL thread, between hand-overs.
  // `fences`: the kind of fence where the context has both (gl_fence.hpp).
  ReadbackRing(GstGLContext *context, GlFences::Kind fences)
      : context_(context), fences_(context, fences) {}
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
  // frame is there once the GPU is, completing it only waits for it.
  Result<void> start_into(unsigned buffer, size_t base, std::span<const Region> regions,
                          size_t bytes);
  // A frame rendered into the output's own memory: a fence alone. `bytes`:
  // what the frame counts as read back (a pass that wrote plain memory a
  // CPU reads, across the bus), 0 for none.
  Result<void> start_in_place(size_t bytes = 0);

  // Bytes a pass wrote into a buffer object (a tensor, gl_tensor_words.hpp):
  // [from, from + length) of the pass's buffer are [to, to + length) of
  // the frame.
  struct Piece {
    size_t from = 0, to = 0, length = 0;
  };
  // A pack buffer of `bytes` for the pass to write into (the SSBO is the
  // pack buffer: no copy on the GPU), the same one until start_written()
  // takes it into flight. GL thread.
  unsigned pass_buffer(size_t bytes);
  // The pass_buffer() the pass wrote, fenced: completing the frame copies
  // the pieces out of it. GL thread.
  Result<void> start_written(std::span<const Piece> pieces, size_t bytes);
  // The pieces of buffer `source` copied by the GPU into a pack buffer of
  // `bytes` (at their `to` offsets), or with into_output into `buffer`
  // from byte `base` of it (the output's own pack memory, or a GL buffer),
  // and fenced. GL thread.
  Result<void> start_copy(unsigned source, std::span<const Piece> pieces, size_t bytes);
  Result<void> start_copy_into(unsigned source, unsigned buffer, size_t base,
                               std::span<const Piece> pieces, size_t bytes);
  // Frames are numbered from 0 in the order they start: the number the
  // next one gets, and whether frame `seq` is done with the GPU (finished,
  // or completed). What a frame reads (a scratch texture) may be written
  // again once it is: reused earlier, the GPU, or the driver on the CPU,
  // would wait for that read.
  uint64_t next_sequence() const { return next_seq_; }
  bool done(uint64_t seq) const;
  // Asks, without waiting, which frames the GPU has finished. GL thread, or
  // any thread with fences_any_thread().
  void poll();
  bool fences_any_thread() const { return fences_.any_thread(); }

  // The oldest frame, in flight: the bytes it reads back (0 for one
  // rendered in place), whether its fence was seen signalled, and whether
  // completing it copies nothing (in place, or read into the output).
  size_t oldest_bytes() const { return flight_.front().bytes; }
  bool oldest_finished() const { return flight_.front().finished; }
  bool oldest_in_output() const { return flight_.front().into_output; }
  // Waits for the oldest frame's fence. Any thread with
  // fences_any_thread().
  Result<void> wait_oldest();
  // The oldest frame, finished and in the output already: forgotten. Any
  // thread.
  void pop_complete();
  // The oldest frame, finished, read into a pack buffer mapped for good:
  // its regions' bytes copied into the same ranges of `dst` (at least
  // oldest_bytes()), no GL call; one whose bytes are in the output already
  // is forgotten (`dst` unused). Any thread.
  bool oldest_copies_without_gl() const { return flight_.front().pack.mapped != nullptr; }
  Result<void> copy_oldest(uint8_t *dst, size_t size);
  // Waits up to `timeout_ns` for the oldest frame; once finished, copies
  // its regions' bytes into `dst` as copy_oldest() does (mapping its pack
  // buffer where it is not mapped for good) and forgets it: true. false
  // where it is still pending (nothing changed: call again); an error (the
  // frame forgotten) where the wait failed. GL thread.
  Result<bool> finish_oldest(uint8_t *dst, size_t size, uint64_t timeout_ns);
  // Forgets every frame in flight (a flush), once the GPU has finished
  // them; the buffers are reused. GL thread.
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
    GlFences::Fence fence = nullptr;
    size_t bytes = 0;
    // Where each region's (or piece's) bytes lie in the pack buffer and in
    // the frame: a fixed array, so a frame in flight allocates nothing.
    std::array<Piece, GST_VIDEO_MAX_PLANES> pieces{};
    size_t n_pieces = 0;
    bool into_output = false;  // start_into, start_in_place: nothing to copy
    bool finished = false;     // its fence was seen signalled (and released)
    uint64_t seq = 0;
  };
  Result<void> prepare(std::span<const Region> regions, size_t bytes, InFlight &frame) const;
  Result<void> prepare(std::span<const Piece> pieces, size_t bytes, InFlight &frame,
                       bool at_destination) const;
  Result<void> copy_buffer(unsigned source, unsigned buffer, size_t base,
                           std::span<const Piece> pieces, InFlight &frame);
  Result<void> read(unsigned buffer, size_t base, std::span<const Region> regions, InFlight &frame);
  Result<void> fence(InFlight &frame);
  // Waits up to `timeout_ns` for the oldest frame's fence: Signalled
  // (finished: its fence released), Pending or Failed.
  GlFences::Status settle_oldest(uint64_t timeout_ns);
  void copy_regions(const InFlight &frame, const void *from, uint8_t *dst) const;
  // The oldest frame goes, its fence released if it still has one; its
  // pack buffer, if its own, back to free_.
  void retire_oldest();
  Pack take_pack(size_t bytes);
  void delete_pack(Pack &pack);

  GstGLContext *context_;
  GlFences fences_;
  unsigned fbo_ = 0;
  std::vector<Pack> free_;
  Pack pending_;  // pass_buffer()'s, until start_written()
  Fifo<InFlight> flight_;
  uint64_t next_seq_ = 0;
};

// The pieces of buffer object `source` into `dest` from byte `base` of it,
// by the GPU (glCopyBufferSubData), in the GL stream. GL thread.
void copy_pieces(GstGLContext *context, unsigned source, unsigned dest, size_t base,
                 std::span<const ReadbackRing::Piece> pieces);

}  // namespace ef::gst
