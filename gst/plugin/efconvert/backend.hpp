// SPDX-License-Identifier: LGPL-2.1-or-later
// A conversion backend of efconvert: made for one pair of caps, used for
// every frame until the caps change.
#pragma once

#ifdef EF_HAVE_GSTGL
#include <gst/gl/gl.h>
#endif
#include <gst/video/video.h>

#include <memory>

#include "common/frame_layout.hpp"
#include "convert_params.hpp"
#include "ef/result.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_convert_debug);

namespace ef::gst {

// What a backend counted: the zero-copy paths (source and destination
// imports) and every copy it had to make instead.
struct BackendStats {
  uint64_t src_hits = 0, src_misses = 0, dst_hits = 0, dst_misses = 0;
  uint64_t uploads = 0, readbacks = 0, declines = 0, refusals = 0;
};

class ConvertBackend {
 public:
  virtual ~ConvertBackend() = default;
  virtual const char *name() const = 0;
  // Converts `in`, whose planes lie as `layout` says (validated), into `out`.
  virtual Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                               const ConvertParams &params) = 0;
  virtual BackendStats stats() const { return {}; }
  // cache-capacity, from the next lookup on: a smaller one evicts the least
  // recently used entries of every cache now. Any thread.
  virtual void set_cache_capacity(uint32_t capacity) = 0;
};

std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const GstVideoInfo &out,
                                                 uint32_t cache_capacity);

#ifdef EF_HAVE_GSTGL
// EINVAL when the GL converter cannot do in -> out. `element` names the
// element in log lines.
Result<std::unique_ptr<ConvertBackend>> make_gl_backend(GstElement *element, GstGLContext *context,
                                                        const GstVideoInfo &in,
                                                        const GstVideoInfo &out,
                                                        uint32_t cache_capacity);
#endif

}  // namespace ef::gst
