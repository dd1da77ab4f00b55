// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_tensor_output.hpp"

#include <gst/gl/gstglfuncs.h>

#include <cerrno>
#include <span>
#include <string>

#include "gl_pack_memory.hpp"

#ifndef GL_SHADER_STORAGE_BUFFER
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#endif
#ifndef GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
#define GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT 0x90DF
#endif

namespace ef::gst {

namespace {

std::span<const ReadbackRing::Piece> pieces_of(const gl::TensorWords &w) {
  static_assert(sizeof(ReadbackRing::Piece) == sizeof(gl::TensorWords::Piece));
  return {reinterpret_cast<const ReadbackRing::Piece *>(w.pieces.data()), w.n_pieces};
}

}  // namespace

GlTensorOutput::GlTensorOutput(GstGLContext *context, const TensorSpec &spec, bool hardware)
    : context_(GST_GL_CONTEXT(gst_object_ref(context))),
      spec_(spec),
      hardware_(hardware),
      direct_(g_strcmp0(g_getenv("EF_GL_TENSOR_WRITE"), "direct") == 0),
      words_(gl::tensor_words(spec)) {
  GLint align = 0;
  context->gl_vtable->GetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &align);
  if (align > 0)
    alignment_ = align;
}

GlTensorOutput::~GlTensorOutput() {
  end();
  if (scratch_)
    context_->gl_vtable->DeleteBuffers(1, &scratch_);
  gst_object_unref(context_);
}

bool GlTensorOutput::binds_at(gsize offset) const {
  return offset % gsize(alignment_) == 0;
}

// Buffer storage in GPU memory, written by the pass and read by copies.
Result<unsigned> GlTensorOutput::scratch() {
  if (!scratch_) {
    const GstGLFuncs *gl = context_->gl_vtable;
    gl->GenBuffers(1, &scratch_);
    gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, scratch_);
    gl->BufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(words_.bytes), nullptr, GL_DYNAMIC_COPY);
    gl->BindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  }
  if (!scratch_)
    return Error{EIO, "cannot make the tensor's scratch buffer"};
  return scratch_;
}

Result<TensorTarget> GlTensorOutput::begin(GstBuffer *out, ReadbackRing &ring) {
  end();
  if (gst_buffer_n_memory(out) != 1 || gst_buffer_get_size(out) < spec_.size())
    return Error{EINVAL,
                 "a tensor buffer is one memory of " + std::to_string(spec_.size()) + " bytes"};
  GstMemory *mem = gst_buffer_peek_memory(out, 0);
  if (gst_is_gl_buffer(mem)) {
    if (GST_GL_BASE_MEMORY_CAST(mem)->context != context_ &&
        !gst_gl_context_can_share(GST_GL_BASE_MEMORY_CAST(mem)->context, context_))
      return Error{EINVAL, "the output's GL buffer belongs to a context this one does not share"};
    // Mapped for GL with write: a CPU map later downloads what the GPU wrote.
    if (!gst_memory_map(mem, &map_, GstMapFlags(GST_MAP_WRITE | GST_MAP_GL)))
      return Error{EIO, "cannot map the output's GL buffer for GL"};
    mapped_ = mem;
    out_buffer_ = *reinterpret_cast<guint *>(map_.data);
    base_ = mem->offset;
    if (words_.exact && binds_at(base_)) {
      route_ = Route::Direct;
      return TensorTarget{out_buffer_, base_};
    }
    route_ = Route::CopyIntoGl;
  } else if (unsigned pack = gl_pack_memory_buffer(mem, context_, &base_); pack && hardware_) {
    out_buffer_ = pack;
    if (direct_ && words_.exact && binds_at(base_)) {
      route_ = Route::IntoOut;
      return TensorTarget{out_buffer_, base_};
    }
    route_ = Route::CopyIntoOut;
  } else if (hardware_) {
    route_ = Route::CopyToPack;
  } else {
    route_ = Route::Written;
    return TensorTarget{ring.pass_buffer(words_.bytes), 0};
  }
  auto buffer = scratch();
  if (!buffer)
    return buffer.error();
  return TensorTarget{*buffer, 0};
}

Result<void> GlTensorOutput::deliver(ReadbackRing &ring) {
  const auto pieces = pieces_of(words_);
  switch (route_) {
    case Route::Direct:
      return {};
    case Route::CopyIntoGl:
      copy_pieces(context_, scratch_, out_buffer_, base_, pieces);
      return {};
    case Route::CopyIntoOut:
      return ring.start_copy_into(scratch_, out_buffer_, base_, pieces, spec_.size());
    case Route::IntoOut:
      return ring.start_in_place(spec_.size());
    case Route::CopyToPack:
      return ring.start_copy(scratch_, pieces, spec_.size());
    case Route::Written:
      return ring.start_written(pieces, spec_.size());
  }
  return {};
}

void GlTensorOutput::end() {
  if (mapped_)
    gst_memory_unmap(mapped_, &map_);
  mapped_ = nullptr;
  out_buffer_ = 0;
  base_ = 0;
}

}  // namespace ef::gst
