// SPDX-License-Identifier: LGPL-2.1-or-later
// What a backend is made with, of efconvert's settings, and which settings
// each backend honours (its registry entry says): the element's property
// values in the backends' own terms, so that no backend reads the element.
#pragma once

#include <glib.h>

namespace ef::gst {

// backend=auto's enum value; every registry entry has its own.
inline constexpr int kAutoBackend = 0;

// gl-contexts' largest value.
inline constexpr unsigned kMaxGlContextsSetting = 64;

// The settings a backend may honour, as bits of BackendEntry::honours.
enum BackendSetting : unsigned {
  kCacheCapacity = 1u << 0,  // cache-capacity
  kNThreads = 1u << 1,       // n-threads
  kKeepBorders = 1u << 2,    // keep-borders
  kReadbackDepth = 1u << 3,  // readback-depth
  kGlShader = 1u << 4,       // gl-shader
  kGpuTiming = 1u << 5,      // gpu-timing
  kGlContexts = 1u << 6,     // gl-contexts
};

// gl-shader: how a GL pass runs.
enum class ShaderStage { Auto, Fragment, Compute };

struct BackendSettings {
  int backend = 0;  // the `backend` enum value: 0 auto, else an entry's
  guint cache_capacity = 0;
  guint n_threads = 0;  // 0: one per online CPU
  guint readback_depth = 0;
  ShaderStage shader = ShaderStage::Auto;
  bool gpu_timing = false;
  guint gl_contexts = 0;
};

}  // namespace ef::gst
