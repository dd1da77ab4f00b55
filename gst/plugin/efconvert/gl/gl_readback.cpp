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
constexpr GLuint64 kWaitNs = 5'000'000'000;

}  // namespace

ReadbackRing::~ReadbackRing() {
  drop();
  const GstGLFuncs *gl = context_->gl_vtable;
  for (Pack &pack : free_)
    delete_pack(pack);
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
    frame.regions[frame.n_regions++] = r;
  }
  frame.bytes = bytes;
  return {};
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
  GLsync fence = gl->FenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  // Submitted now, so the GPU works on it while the CPU does the rest.
  gl->Flush();
  if (!fence) {
    if (!frame.into_output)
      free_.push_back(frame.pack);
    return Error{EIO, "glFenceSync failed"};
  }
  frame.fence = fence;
  flight_.push_back(frame);
  return {};
}

Result<void> ReadbackRing::finish_oldest(uint8_t *dst, size_t size) {
  if (flight_.empty())
    return Error{EINVAL, "no read-back in flight"};
  const GstGLFuncs *gl = context_->gl_vtable;
  InFlight frame = flight_.front();
  flight_.pop_front();
  const GLenum waited =
      frame.finished ? GLenum(GL_ALREADY_SIGNALED)
                     : gl->ClientWaitSync(GLsync(frame.fence), GL_SYNC_FLUSH_COMMANDS_BIT, kWaitNs);
  if (!frame.finished)
    gl->DeleteSync(GLsync(frame.fence));
  Result<void> result;
  if (waited == GL_TIMEOUT_EXPIRED || waited == GL_WAIT_FAILED) {
    result = Error{EIO, waited == GL_TIMEOUT_EXPIRED
                            ? "the GPU did not finish a frame's read-back within 5 s"
                            : "glClientWaitSync failed"};
  } else if (size < frame.bytes) {
    result = Error{EINVAL, "output of " + std::to_string(size) + " bytes, read-back of " +
                               std::to_string(frame.bytes)};
  } else {
    auto copy = [&](const void *bytes) {
      for (size_t i = 0; i < frame.n_regions; ++i) {
        const Region &r = frame.regions[i];
        std::memcpy(dst + r.offset, static_cast<const uint8_t *>(bytes) + r.offset, r.length);
      }
    };
    if (frame.into_output) {
      // Already where it goes (coherent: visible once the fence signalled).
    } else if (frame.pack.mapped) {
      // Coherent: the GPU's writes are visible once the fence signalled.
      copy(frame.pack.mapped);
    } else {
      gl->BindBuffer(GL_PIXEL_PACK_BUFFER, frame.pack.buffer);
      const void *bytes =
          gl->MapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(frame.bytes), GL_MAP_READ_BIT);
      if (bytes) {
        copy(bytes);
        gl->UnmapBuffer(GL_PIXEL_PACK_BUFFER);
      } else {
        result = Error{EIO, "cannot map the read-back buffer"};
      }
      gl->BindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    }
  }
  if (!frame.into_output)
    free_.push_back(frame.pack);
  return result;
}

void ReadbackRing::poll() {
  const GstGLFuncs *gl = context_->gl_vtable;
  for (InFlight &frame : flight_) {
    if (frame.finished)
      continue;
    const GLenum status = gl->ClientWaitSync(GLsync(frame.fence), 0, 0);
    if (status != GL_ALREADY_SIGNALED && status != GL_CONDITION_SATISFIED)
      break;  // later ones were submitted later
    gl->DeleteSync(GLsync(frame.fence));
    frame.finished = true;
  }
}

bool ReadbackRing::oldest_complete() const {
  return !flight_.empty() && flight_.front().into_output && flight_.front().finished;
}

void ReadbackRing::pop_complete() {
  flight_.pop_front();
}

void ReadbackRing::drop() {
  const GstGLFuncs *gl = context_->gl_vtable;
  // Done with what the frames read, so that their inputs may be let go.
  if (!flight_.empty())
    gl->Finish();
  for (InFlight &frame : flight_) {
    if (!frame.finished)
      gl->DeleteSync(GLsync(frame.fence));
    if (!frame.into_output)
      free_.push_back(frame.pack);
  }
  flight_.clear();
}

}  // namespace ef::gst
