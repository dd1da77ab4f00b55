// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's state, split the way gst-plugins-rs elements are: settings
// under a lock, copied once per frame; the stream's state (caps, backend)
// made in set_caps and dropped in stop; statistics readable from any thread.
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <mutex>
#include <string>

#include "backend.hpp"
#include "common/cache_capacity.hpp"
#include "common/frame_errors.hpp"
#include "common/gst_ptr.hpp"
#include "common/refused_caps.hpp"
#include "convert_counters.hpp"
#include "convert_params.hpp"
#include "ef/import_cache.hpp"
#include "gstefconvert.h"
#include "held_outputs.hpp"
#include "ignored_settings.hpp"
#include "output_spec.hpp"
#include "setting_refusals.hpp"
#include "settings_check.hpp"
#include "tensor_settings.hpp"
#ifdef EF_HAVE_GSTGL
#include "common/gl_context.hpp"
#endif

namespace ef::gst {

// Settings: written by the application thread under ConvertState::lock, copied
// by the streaming thread once per frame (and at set_caps).
struct Settings {
  GstEfConvertBackend backend = GST_EF_CONVERT_BACKEND_AUTO;
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

struct ConvertState {
  std::mutex lock;  // guards settings, the last plan and replacing the backend
  Settings settings;
  ConvertParams last_plan{};
  CapsPtr attach;       // attach-tensor: negotiation reads it, so it is no per-frame setting
  StreamShape shape;    // what set_caps negotiated: settings are checked against it when set
  bool remake = false;  // a setting the backend is made with changed: a new one at the next frame
  SettingRefusals refusals;  // values refused: an ERROR at start, or a WARNING while running
  // Stream state: made by set_caps from the caps and the settings, read by
  // the streaming thread, dropped by stop (drop_stream).
  GstVideoInfo in_info{};
  OutputSpec out;  // what the backend makes: an image or a tensor
  std::unique_ptr<ConvertBackend> backend;
  ObjectPtr<GstBufferPool> attach_pool;  // the tensors attach-tensor attaches
  BackendStats retired;                  // what replaced backends counted
  std::string reason;                    // why this backend, unless it says itself
  RefusedCaps refused;                   // forgotten by stop: a new run says it again
#ifdef EF_HAVE_GSTGL
  ElementGlContext gl;
#endif
  FrameErrors errors;
  ConvertStats stats;
  HeldOutputs held;              // streaming thread
  IgnoredSettingsWatch ignored;  // streaming thread
};

}  // namespace ef::gst
