// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's settings: written by the application thread under the
// state's settings lock (convert_state.hpp), copied by the streaming
// thread once per frame (and at set_caps), so a frame sees one set.
#pragma once

#include <gst/video/video.h>

#include "efconvert/backends/backend_settings.hpp"
#include "convert_enums.h"
#include "ef/import_cache.hpp"
#include "efconvert/tensors/tensor_settings.hpp"

namespace ef::gst {

struct Settings {
  int backend = kAutoBackend;  // the `backend` enum: 0 auto, else a registry entry's value
  GstEfConvertMethod method = GST_EF_CONVERT_METHOD_BILINEAR;
  bool letterbox = true;
  guint32 fill_color = 0xff000000;     // 0xAARRGGBB
  GstVideoRectangle crop{0, 0, 0, 0};  // w == h == 0: none
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  GstVideoOrientationMethod tag_direction = GST_VIDEO_ORIENTATION_IDENTITY;
  guint cache_capacity = default_cache_capacity();
  guint n_threads = 0;       // 0: one per online CPU
  guint readback_depth = 0;  // frames read back while later ones render
  GstEfConvertGlShader gl_shader = GST_EF_CONVERT_GL_SHADER_AUTO;
  bool gpu_timing = false;   // GL timer queries (gpu-time-ns)
  bool keep_borders = true;  // border rows left where the memory holds them (cpu_border_tag)
  guint gl_contexts = 0;     // > 0: the GL context from a pool of that many (gl_sharing)
  TensorSettings tensor;     // mean, std, quantisation, channel order, id
  // Bumped by every change (a property, an orientation tag): caps refused
  // under one revision are refused alike until it moves (common/refused_caps).
  guint64 revision = 0;
};

// What the backends are made with, in their terms.
inline BackendSettings backend_settings(const Settings &s) {
  BackendSettings b;
  b.backend = s.backend;
  b.cache_capacity = s.cache_capacity;
  b.n_threads = s.n_threads;
  b.readback_depth = s.readback_depth;
  b.shader = s.gl_shader == GST_EF_CONVERT_GL_SHADER_FRAGMENT  ? ShaderStage::Fragment
             : s.gl_shader == GST_EF_CONVERT_GL_SHADER_COMPUTE ? ShaderStage::Compute
                                                               : ShaderStage::Auto;
  b.gpu_timing = s.gpu_timing;
  b.gl_contexts = s.gl_contexts;
  return b;
}

}  // namespace ef::gst
