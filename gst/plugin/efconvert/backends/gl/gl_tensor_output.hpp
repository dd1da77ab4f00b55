// SPDX-License-Identifier: LGPL-2.1-or-later
// Where the GL backend's tensor pass writes, and how a frame's tensor then
// reaches its output buffer (GL thread):
// - A GL buffer (GstGLBuffer, caps memory:GLBuffer): the tensor stays on
//   the GPU. The pass writes into it, or, where its layout needs padding
//   (gl_tensor_words.hpp) or its offset is not one a shader storage binding
//   takes, into scratch of ours copied into it by the GPU. Nothing is read
//   back and nothing waits.
// - GL pack memory of ours (hardware GL: gl_pack_memory.hpp): the pass
//   writes scratch in GPU memory and the GPU copies it into the output
//   (one buffer-to-buffer copy, the read-back), behind a fence; with
//   EF_GL_TENSOR_WRITE=direct the pass writes the output itself where its
//   layout allows (the shader's stores cross the bus; no copy), to measure
//   which is faster on a GPU.
// - Any other plain memory: on a software rasterizer the pass writes into
//   a pack buffer of the read-back ring, mapped for good (the shader
//   storage is the pack buffer: no copy on the "GPU"), and completing the
//   frame copies it into the output; on hardware the scratch is copied
//   into such a pack buffer first (the pass's writes stay in GPU memory).
#pragma once

#include <gst/gl/gl.h>

#include "gl_tensor_words.hpp"
#include "efconvert/plan/output_spec.hpp"
#include "ef/result.hpp"
#include "gl_converter.hpp"
#include "gl_readback.hpp"

namespace ef::gst {

class GlTensorOutput {
 public:
  GlTensorOutput(GstGLContext *context, const TensorSpec &spec, bool hardware);
  ~GlTensorOutput();  // GL thread
  GlTensorOutput(const GlTensorOutput &) = delete;
  GlTensorOutput &operator=(const GlTensorOutput &) = delete;

  // How one frame goes: begin() decides and gives the pass's target,
  // deliver() (after the pass) copies or fences, end() lets go of the
  // output's memory. begin() and end() bracket every frame, also a failed
  // one.
  Result<TensorTarget> begin(GstBuffer *out, ReadbackRing &ring);
  // Whether deliver() copies on the GPU (timed as the read-back).
  bool copies() const {
    return route_ != Route::Direct && route_ != Route::Written && route_ != Route::IntoOut;
  }
  Result<void> deliver(ReadbackRing &ring);
  void end();

  const gl::TensorWords &words() const { return words_; }

 private:
  enum class Route {
    Direct,       // into the output's GL buffer
    CopyIntoGl,   // scratch, copied into the output's GL buffer
    CopyIntoOut,  // scratch, copied into the output's pack memory (fenced)
    IntoOut,      // into the output's pack memory (fenced)
    CopyToPack,   // scratch, copied into a pack buffer of the ring (fenced)
    Written,      // into a pack buffer of the ring (fenced)
  };
  Result<unsigned> scratch();
  bool binds_at(gsize offset) const;

  GstGLContext *context_;
  TensorSpec spec_;
  bool hardware_;
  bool direct_;  // EF_GL_TENSOR_WRITE=direct
  gl::TensorWords words_;
  gint alignment_ = 256;  // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
  unsigned scratch_ = 0;
  // This frame's.
  Route route_ = Route::Written;
  GstMemory *mapped_ = nullptr;  // the output's GL buffer, mapped for GL
  GstMapInfo map_{};
  unsigned out_buffer_ = 0;
  gsize base_ = 0;
};

}  // namespace ef::gst
