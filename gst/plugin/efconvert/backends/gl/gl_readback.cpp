// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_readback.hpp"

#include "gl_pack_memory.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ef::gst {

namespace {

// A frame that the GPU has not finished after this long is a hung GPU: the
// element says so instead of waiting for ever.
constexpr uint64_t kWaitNs = 5'000'000'000;

// Why a frame's wait ended without it.
Error wait_error(GlFences::Status status) {
  return Error{EIO, status == GlFences::Status::Pending
                        ? "the GPU did not finish a frame within 5 s"
                        : "waiting for a frame's fence failed"};
}

using CopyBufferSubData = void(GSTGLAPI *)(GLenum, GLenum, GLintptr, GLintptr, GLsizeiptr);

// glCopyBufferSubData (GL 3.1, GLES 3.0): GstGL loads it for core and ES
// contexts, not for a compatibility one (GST_GL_API=opengl), whose driver
// has it all the same.
CopyBufferSubData copy_buffer_sub_data(GstGLContext *context) {
  if (context->gl_vtable->CopyBufferSubData)
    return context->gl_vtable->CopyBufferSubData;
  return reinterpret_cast<CopyBufferSubData>(
      gst_gl_context_get_proc_address(context, "glCopyBufferSubData"));
}

}  // namespace

ReadbackRing::~ReadbackRing() {
  drop();
  const GstGLFuncs *gl = context_->gl_vtable;
  for (Pack &pack : free_)
    delete_pack(pack);
  if (pending_.buffer)
    delete_pack(pending_);
  if (fbo_)
    gl->DeleteFramebuffers(1, &fbo_);
}

void ReadbackRing::delete_pack(Pack &pack) {
  if (pack.mapped) {
    MappedPack mapped{pack.buffer, pack.mapped};
    mapped_pack_delete(context_, mapped);
  } else {
    context_->gl_vtable->DeleteBuffers(1, &pack.buffer);
  }
  pack = {};
}

ReadbackRing::Pack ReadbackRing::take_pack(size_t bytes) {
  Pack pack;
  if (!free_.empty()) {
    pack = free_.back();
    free_.pop_back();
  }
  if (pack.buffer && pack.size == bytes)
    return pack;
  // Storage is immutable: another size is another buffer.
  if (pack.buffer)
    delete_pack(pack);
  const MappedPack mapped = mapped_pack_new(context_, bytes);
  pack = {mapped.buffer, bytes, mapped.data};
  if (!pack.buffer) {
    // No buffer storage, or the driver would not map it: a buffer mapped
    // per frame instead.
    const GstGLFuncs *gl = context_->gl_vtable;
    gl->GenBuffers(1, &pack.buffer);
    gl->BindBuffer(GL_PIXEL_PACK_BUFFER, pack.buffer);
    gl->BufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
    gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  }
  return pack;
}

Result<void> ReadbackRing::start(std::span<const Region> regions, size_t bytes) {
  InFlight frame;
  if (auto ok = prepare(regions, bytes, frame); !ok)
    return ok;
  frame.pack = take_pack(bytes);
  return read(frame.pack.buffer, 0, regions, frame);
}

Result<void> ReadbackRing::start_into(unsigned buffer, size_t base, std::span<const Region> regions,
                                      size_t bytes) {
  InFlight frame;
  frame.into_output = true;
  if (auto ok = prepare(regions, bytes, frame); !ok)
    return ok;
  return read(buffer, base, regions, frame);
}

Result<void> ReadbackRing::start_in_place(size_t bytes) {
  InFlight frame;
  frame.into_output = true;
  frame.bytes = bytes;
  return fence(frame);
}

// Checks the context and the regions, and keeps them in `frame`.
Result<void> ReadbackRing::prepare(std::span<const Region> regions, size_t bytes,
                                   InFlight &frame) const {
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!gl->FenceSync || !gl->MapBufferRange)
    return Error{ENOTSUP, "the GL context has no fences or buffer mapping"};
  if (regions.size() > GST_VIDEO_MAX_PLANES)
    return Error{EINVAL, "more read-back regions than planes"};
  for (const Region &r : regions) {
    if (r.offset + r.length > bytes)
      return Error{EINVAL,
                   "a read-back region lies past the frame's " + std::to_string(bytes) + " bytes"};
    frame.pieces[frame.n_pieces++] = {r.offset, r.offset, r.length};
  }
  frame.bytes = bytes;
  return {};
}

// The same for pieces; `at_destination`: the pack buffer holds them where
// the frame does (copied there by the GPU), else where the pass wrote them.
Result<void> ReadbackRing::prepare(std::span<const Piece> pieces, size_t bytes, InFlight &frame,
                                   bool at_destination) const {
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!gl->FenceSync || !gl->MapBufferRange || !copy_buffer_sub_data(context_))
    return Error{ENOTSUP, "the GL context has no fences, buffer mapping or buffer copies"};
  if (pieces.size() > GST_VIDEO_MAX_PLANES)
    return Error{EINVAL, "more read-back pieces than planes"};
  for (const Piece &p : pieces) {
    if (p.to + p.length > bytes)
      return Error{EINVAL,
                   "a read-back piece lies past the frame's " + std::to_string(bytes) + " bytes"};
    frame.pieces[frame.n_pieces++] = {at_destination ? p.to : p.from, p.to, p.length};
  }
  frame.bytes = bytes;
  return {};
}

unsigned ReadbackRing::pass_buffer(size_t bytes) {
  if (pending_.buffer && pending_.size != bytes) {
    free_.push_back(pending_);
    pending_ = {};
  }
  if (!pending_.buffer)
    pending_ = take_pack(bytes);
  return pending_.buffer;
}

Result<void> ReadbackRing::start_written(std::span<const Piece> pieces, size_t bytes) {
  if (!pending_.buffer)
    return Error{EINVAL, "no pass buffer was taken"};
  InFlight frame;
  if (auto ok = prepare(pieces, bytes, frame, false); !ok)
    return ok;
  frame.pack = pending_;
  pending_ = {};
  return fence(frame);
}

Result<void> ReadbackRing::start_copy(unsigned source, std::span<const Piece> pieces,
                                      size_t bytes) {
  InFlight frame;
  if (auto ok = prepare(pieces, bytes, frame, true); !ok)
    return ok;
  frame.pack = take_pack(bytes);
  return copy_buffer(source, frame.pack.buffer, 0, pieces, frame);
}

Result<void> ReadbackRing::start_copy_into(unsigned source, unsigned buffer, size_t base,
                                           std::span<const Piece> pieces, size_t bytes) {
  InFlight frame;
  frame.into_output = true;
  if (auto ok = prepare(pieces, bytes, frame, true); !ok)
    return ok;
  return copy_buffer(source, buffer, base, pieces, frame);
}

// The pieces from `source` into `buffer` (from byte `base`), by the GPU,
// then the fence.
Result<void> ReadbackRing::copy_buffer(unsigned source, unsigned buffer, size_t base,
                                       std::span<const Piece> pieces, InFlight &frame) {
  copy_pieces(context_, source, buffer, base, pieces);
  return fence(frame);
}

// Reads the regions into `buffer` from byte `base` of it and fences the
// frame.
Result<void> ReadbackRing::read(unsigned buffer, size_t base, std::span<const Region> regions,
                                InFlight &frame) {
  const GstGLFuncs *gl = context_->gl_vtable;
  if (!fbo_)
    gl->GenFramebuffers(1, &fbo_);
  GLint framebuffer = 0;
  gl->GetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer);
  gl->BindFramebuffer(GL_FRAMEBUFFER, fbo_);
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, buffer);
  gl->PixelStorei(GL_PACK_ALIGNMENT, 1);
  for (const Region &r : regions) {
    gl->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r.texture, 0);
    gl->ReadPixels(0, 0, GLsizei(r.width), GLsizei(r.rows), r.format, GL_UNSIGNED_BYTE,
                   reinterpret_cast<void *>(base + r.offset));
  }
  gl->PixelStorei(GL_PACK_ALIGNMENT, 4);
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  // Not left attached: the texture may be deleted by its owner.
  gl->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, 0, 0);
  gl->BindFramebuffer(GL_FRAMEBUFFER, GLuint(framebuffer));
  return fence(frame);
}

Result<void> ReadbackRing::fence(InFlight &frame) {
  frame.fence = fences_.insert();
  if (!frame.fence) {
    if (frame.pack.buffer && !frame.into_output)
      free_.push_back(frame.pack);
    return Error{EIO, "cannot fence the frame (glFenceSync / eglCreateSyncKHR failed)"};
  }
  frame.seq = next_seq_++;
  flight_.push_back(frame);
  return {};
}

bool ReadbackRing::done(uint64_t seq) const {
  if (flight_.empty() || seq < flight_.front().seq)
    return true;  // completed (or dropped)
  if (seq >= next_seq_)
    return true;  // never started: nothing reads for it
  return flight_[size_t(seq - flight_.front().seq)].finished;
}

void ReadbackRing::poll() {
  for (InFlight &frame : flight_) {
    if (frame.finished)
      continue;
    if (fences_.wait(frame.fence, 0) != GlFences::Status::Signalled)
      break;  // later ones were submitted later
    fences_.release(frame.fence);
    frame.fence = nullptr;
    frame.finished = true;
  }
}

GlFences::Status ReadbackRing::settle_oldest(uint64_t timeout_ns) {
  InFlight &frame = flight_.front();
  if (frame.finished)
    return GlFences::Status::Signalled;
  const GlFences::Status status = fences_.wait(frame.fence, timeout_ns);
  if (status != GlFences::Status::Signalled)
    return status;
  fences_.release(frame.fence);
  frame.fence = nullptr;
  frame.finished = true;
  return status;
}

Result<void> ReadbackRing::wait_oldest() {
  if (flight_.empty())
    return Error{EINVAL, "no frame in flight"};
  if (const GlFences::Status status = settle_oldest(kWaitNs); status != GlFences::Status::Signalled)
    return wait_error(status);
  return {};
}

void ReadbackRing::copy_regions(const InFlight &frame, const void *from, uint8_t *dst) const {
  for (size_t i = 0; i < frame.n_pieces; ++i) {
    const Piece &p = frame.pieces[i];
    std::memcpy(dst + p.to, static_cast<const uint8_t *>(from) + p.from, p.length);
  }
}

void ReadbackRing::retire_oldest() {
  InFlight &frame = flight_.front();
  // A frame that failed its wait (a hung GPU) still has its fence; any
  // thread may release it where any thread may wait for it, and only
  // there is an unfinished frame retired off the GL thread.
  fences_.release(frame.fence);
  frame.fence = nullptr;
  if (!frame.into_output)
    free_.push_back(frame.pack);
  flight_.pop_front();
}

void ReadbackRing::pop_complete() {
  retire_oldest();
}

Result<void> ReadbackRing::copy_oldest(uint8_t *dst, size_t size) {
  const InFlight &frame = flight_.front();
  Result<void> result;
  // A frame into the output has its bytes there already.
  if (!frame.into_output && size < frame.bytes)
    result = Error{EINVAL, "output of " + std::to_string(size) + " bytes, read-back of " +
                               std::to_string(frame.bytes)};
  else if (!frame.into_output)
    copy_regions(frame, frame.pack.mapped, dst);  // coherent: visible once signalled
  retire_oldest();
  return result;
}

Result<bool> ReadbackRing::finish_oldest(uint8_t *dst, size_t size, uint64_t timeout_ns) {
  if (flight_.empty())
    return Error{EINVAL, "no frame in flight"};
  const GlFences::Status status = settle_oldest(timeout_ns);
  if (status == GlFences::Status::Pending && timeout_ns < kWaitNs)
    return false;
  if (status != GlFences::Status::Signalled) {
    retire_oldest();
    return wait_error(status);
  }
  const InFlight &frame = flight_.front();
  if (frame.into_output || frame.pack.mapped || size < frame.bytes) {
    if (auto copied = copy_oldest(dst, size); !copied)
      return copied.error();
    return true;
  }
  const GstGLFuncs *gl = context_->gl_vtable;
  Result<void> result;
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, frame.pack.buffer);
  // The whole pack: a pass's pieces may lie past the frame's size in it.
  const void *bytes =
      gl->MapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(frame.pack.size), GL_MAP_READ_BIT);
  if (bytes) {
    copy_regions(frame, bytes, dst);
    gl->UnmapBuffer(GL_PIXEL_PACK_BUFFER);
  } else {
    result = Error{EIO, "cannot map the read-back buffer"};
  }
  gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  retire_oldest();
  if (!result)
    return result.error();
  return true;
}

void ReadbackRing::drop() {
  // Done with what the frames read, so that their inputs may be let go.
  if (!flight_.empty())
    context_->gl_vtable->Finish();
  for (InFlight &frame : flight_) {
    fences_.release(frame.fence);
    if (!frame.into_output)
      free_.push_back(frame.pack);
  }
  flight_.clear();
}

void copy_pieces(GstGLContext *context, unsigned source, unsigned dest, size_t base,
                 std::span<const ReadbackRing::Piece> pieces) {
  const GstGLFuncs *gl = context->gl_vtable;
  const CopyBufferSubData copy = copy_buffer_sub_data(context);
  gl->BindBuffer(GL_COPY_READ_BUFFER, source);
  gl->BindBuffer(GL_COPY_WRITE_BUFFER, dest);
  for (const ReadbackRing::Piece &p : pieces)
    copy(GL_COPY_READ_BUFFER, GL_COPY_WRITE_BUFFER, GLintptr(p.from), GLintptr(base + p.to),
         GLsizeiptr(p.length));
  gl->BindBuffer(GL_COPY_READ_BUFFER, 0);
  gl->BindBuffer(GL_COPY_WRITE_BUFFER, 0);
}

}  // namespace ef::gst
