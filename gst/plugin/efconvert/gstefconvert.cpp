// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert: colour conversion, scaling, letterbox, crop and turns into
// model-ready frames in one pass. See docs/ARCHITECTURE.md, "efconvert".
#include "gstefconvert.h"

#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "backend.hpp"
#include "backend_choice.hpp"
#include "backend_trial.hpp"
#ifdef EF_HAVE_GSTGL
#include "common/gl_context.hpp"
#include "common/gl_limits.hpp"
#include "common/gl_pool.hpp"
#endif
#include "common/cache_capacity.hpp"
#include "common/caps_filter.hpp"
#include "common/dma_drm_caps.hpp"
#include "common/element_stats.hpp"
#include "common/frame_errors.hpp"
#include "common/frame_layout.hpp"
#include "common/pad_templates.hpp"
#include "common/size_limits.hpp"
#include "convert_params.hpp"
#include "cpu/cpu_converter.hpp"
#include "ef/import_cache.hpp"
#include "common/gst_ptr.hpp"

GST_DEBUG_CATEGORY(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

using namespace ef;
using namespace ef::gst;

namespace {

#define EF_CONVERT_IN_FORMATS "{ NV12, I420, YUY2, UYVY, RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 }"
#define EF_CONVERT_OUT_FORMATS "{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, GRAY8, RGBP, BGRP }"
// As GL textures: the formats the GL backend renders as pixels.
#define EF_CONVERT_GL_OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx }"

constexpr const char *kSinkCaps = GST_VIDEO_CAPS_MAKE(EF_CONVERT_IN_FORMATS) ";" EF_DMABUF_CAPS(
    EF_CONVERT_IN_FORMATS)
#ifdef EF_HAVE_GSTGL
    ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, EF_CONVERT_IN_FORMATS)
#endif
    ;
constexpr const char *kSrcCaps =
    GST_VIDEO_CAPS_MAKE(EF_CONVERT_OUT_FORMATS) ";" EF_DMABUF_OUT_CAPS(EF_CONVERT_OUT_FORMATS)
#ifdef EF_HAVE_GSTGL
        ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_GL_MEMORY,
                                              EF_CONVERT_GL_OUT_FORMATS)
#endif
    ;

// dma-bufs are mapped (CPU) or imported plane by plane (GL) in, and are
// memfds or dma-heap buffers out: LINEAR both ways.
const DrmSupport &drm_in() {
  static const DrmSupport support(EF_CONVERT_IN_FORMATS);
  return support;
}
const DrmSupport &drm_out() {
  static const DrmSupport support(EF_CONVERT_OUT_FORMATS);
  return support;
}

struct ConvertCounters {
  enum Counter : guint {
    kFrames,
    kSrcHits,
    kSrcMisses,
    kDstHits,
    kDstMisses,
    kUploads,
    kReadbacks,
    kDeclines,
    kRefusals,
    kDropped,
    kBytesRead,
    kGpuTimeNs,
    kGpuFrames,
    kCount,
  };
  static constexpr const char *kName = "efconvert-stats";
  static constexpr std::array<CounterSpec, kCount> kSpecs = {{
      {kFrames, "frames", "Frames converted"},
      {kSrcHits, "src-hits",
       "Sources served from the cache: EGLImages (GL), mappings of memfds (CPU)"},
      {kSrcMisses, "src-misses", "Sources imported (GL) or mapped (CPU) anew"},
      {kDstHits, "dst-hits", "Destination render targets served from the cache (GL backend)"},
      {kDstMisses, "dst-misses", "Destination render targets imported (GL backend)"},
      {kUploads, "uploads", "Frames copied into textures because they could not be imported"},
      {kReadbacks, "readbacks", "Frames read back from the GPU into plain system memory"},
      {kDeclines, "declines", "Frames not imported (system memory, refused or failed import)"},
      {kRefusals, "refusals", "Cache lookups refused because an identity no longer matched"},
      {kDropped, "dropped", "Bad input frames dropped with a warning (see max-errors)"},
      {kBytesRead, "bytes-read", "Bytes read back from the GPU into plain system memory"},
      {kGpuTimeNs, "gpu-time-ns",
       "GPU time of the GL backend's passes (and read-backs into pack buffers), from GL timer "
       "queries, summed over gpu-frames frames; 0 where the GL has no timer queries"},
      {kGpuFrames, "gpu-frames", "Frames whose GPU time is in gpu-time-ns"},
  }};
};
using ConvertStats = ElementStats<ConvertCounters>;
using enum ConvertCounters::Counter;

constexpr guint PROP_BACKEND = 1;
constexpr guint PROP_BACKEND_IN_USE = 2;
constexpr guint PROP_METHOD = 3;
constexpr guint PROP_LETTERBOX = 4;
constexpr guint PROP_FILL_COLOR = 5;
constexpr guint PROP_CROP = 6;
constexpr guint PROP_VIDEO_DIRECTION = 7;
constexpr guint PROP_CACHE_CAPACITY = 8;
constexpr guint PROP_LETTERBOX_SCALE = 9;
constexpr guint PROP_LETTERBOX_X = 10;
constexpr guint PROP_LETTERBOX_Y = 11;
constexpr guint PROP_FIRST_COUNTER = 12;  // then one per counter, then "stats"
constexpr guint PROP_STATS = PROP_FIRST_COUNTER + ConvertStats::kCount;
constexpr guint PROP_MAX_ERRORS = PROP_STATS + 1;
constexpr guint PROP_N_THREADS = PROP_MAX_ERRORS + 1;
constexpr guint PROP_BACKEND_REASON = PROP_N_THREADS + 1;
constexpr guint PROP_READBACK_DEPTH = PROP_BACKEND_REASON + 1;
constexpr guint kMaxReadbackDepth = 4;

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
};

// An output pushed later: behind a read-back in flight, or behind one that is.
struct Held {
  GstBuffer *buffer;
  bool in_flight;  // its bytes are still on their way from the GPU
};

// Split the way gst-plugins-rs elements are: settings under a lock, copied
// once per frame; the stream's state (caps, backend) made in set_caps and
// dropped in stop; statistics readable from any thread.
struct ConvertState {
  std::mutex lock;  // guards settings, the last plan and replacing the backend
  Settings settings;
  ConvertParams last_plan{};
  // Stream state: written by set_caps, read by the streaming thread.
  GstVideoInfo in_info{};
  GstVideoInfo out_info{};
  std::unique_ptr<ConvertBackend> backend;
  BackendStats retired;  // what replaced backends counted
  std::string reason;    // why this backend, unless it says itself
#ifdef EF_HAVE_GSTGL
  ElementGlContext gl;
#endif
  FrameErrors errors;
  ConvertStats stats;
  std::deque<Held> held;        // streaming thread; oldest first
  bool last_in_flight = false;  // the frame transform() just converted
};

}  // namespace

struct _GstEfConvert {
  GstBaseTransform parent;
  ConvertState *state;
};

static void gst_ef_convert_direction_init(GstVideoDirectionInterface *) {}

#define gst_ef_convert_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE(GstEfConvert, gst_ef_convert, GST_TYPE_BASE_TRANSFORM,
                        G_IMPLEMENT_INTERFACE(GST_TYPE_VIDEO_DIRECTION,
                                              gst_ef_convert_direction_init);
                        GST_DEBUG_CATEGORY_INIT(gst_ef_convert_debug, "efconvert", 0,
                                                "ef convert, scale and letterbox"))
GST_ELEMENT_REGISTER_DEFINE(efconvert, "efconvert", GST_RANK_NONE, GST_TYPE_EF_CONVERT)

GType gst_ef_convert_backend_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_EF_CONVERT_BACKEND_AUTO, "The faster for the caps on this machine", "auto"},
      {GST_EF_CONVERT_BACKEND_GL, "One shader pass (GstGL)", "gl"},
      {GST_EF_CONVERT_BACKEND_CPU, "Fused libyuv pass on the CPU", "cpu"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertBackend", values));
  return type;
}

GType gst_ef_convert_method_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_EF_CONVERT_METHOD_BILINEAR, "Bilinear", "bilinear"},
      {GST_EF_CONVERT_METHOD_NEAREST, "Nearest neighbour", "nearest"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertMethod", values));
  return type;
}

namespace {

ConvertState &state_of(gpointer self) {
  return *GST_EF_CONVERT(self)->state;
}

bool is_gl_caps(GstCaps *caps) {
  GstCapsFeatures *f = gst_caps_get_features(caps, 0);
  return f && gst_caps_features_contains(f, "memory:GLMemory");
}

// The counters the backends and the bad-frame rule keep themselves.
void derive_counters(ConvertState &s, ConvertStats::Values &v) {
  BackendStats b;
  {
    std::lock_guard lock(s.lock);
    b = s.retired + (s.backend ? s.backend->stats() : BackendStats{});
  }
  v[kSrcHits] = b.src_hits;
  v[kSrcMisses] = b.src_misses;
  v[kDstHits] = b.dst_hits;
  v[kDstMisses] = b.dst_misses;
  v[kUploads] = b.uploads;
  v[kReadbacks] = b.readbacks;
  v[kDeclines] = b.declines;
  v[kRefusals] = b.refusals;
  v[kDropped] = s.errors.dropped();
  v[kBytesRead] = b.bytes_read;
  v[kGpuTimeNs] = b.gpu_time_ns;
  v[kGpuFrames] = b.gpu_frames;
}

guint readback_depth(ConvertState &s) {
  std::lock_guard lock(s.lock);
  return s.settings.readback_depth;
}

// Replaces the backend, keeping what the old one counted.
void replace_backend(ConvertState &s, std::unique_ptr<ConvertBackend> next) {
  std::unique_ptr<ConvertBackend> old;
  {
    std::lock_guard lock(s.lock);
    if (s.backend)
      s.retired = s.retired + s.backend->stats();
    old = std::move(s.backend);
    s.backend = std::move(next);
  }
}

Settings copy_settings(ConvertState &s) {
  std::lock_guard lock(s.lock);
  return s.settings;
}

GstVideoOrientationMethod effective_direction(const Settings &settings) {
  return settings.direction == GST_VIDEO_ORIENTATION_AUTO ? settings.tag_direction
                                                          : settings.direction;
}

// Appends to `out` each structure of `caps` with its format set to
// `formats`, any size, and no colorimetry or aspect ratio (the conversion
// decides them), in memory `feature`; dma-buf structures in the form of
// this GStreamer version, in the layouts `drm` takes.
GstCaps *append_retargeted(GstCaps *out, GstCaps *caps, const char *formats, const char *feature,
                           const DrmSupport &drm) {
  GValue list = G_VALUE_INIT;
  GstStructure *templ = gst_structure_from_string(
      (std::string("video/x-raw, format=(string)") + formats).c_str(), nullptr);
  gst_value_init_and_copy(&list, gst_structure_get_value(templ, "format"));
  gst_structure_free(templ);
  const bool dmabuf = std::string(feature) == GST_CAPS_FEATURE_MEMORY_DMABUF;
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstStructure *s = gst_structure_copy(gst_caps_get_structure(caps, i));
    gst_structure_set_value(s, "format", &list);
    gst_structure_set(s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height", GST_TYPE_INT_RANGE, 1,
                      G_MAXINT, nullptr);
    gst_structure_remove_fields(s, "colorimetry", "chroma-site", "pixel-aspect-ratio",
                                "texture-target", "drm-format", nullptr);
    if (dmabuf) {
      out = gst_caps_merge(
          out, dmabuf_caps_of(s, gst_caps_features_new(feature, nullptr), drm, &drm == &drm_in()));
      gst_structure_free(s);
      continue;
    }
    out = gst_caps_merge_structure_full(out, s, gst_caps_features_new(feature, nullptr));
  }
  g_value_unset(&list);
  return out;
}

GstCaps *gst_ef_convert_transform_caps(GstBaseTransform *, GstPadDirection direction, GstCaps *caps,
                                       GstCaps *filter) {
  const bool to_src = direction == GST_PAD_SINK;
  const char *formats = to_src ? EF_CONVERT_OUT_FORMATS : EF_CONVERT_IN_FORMATS;
  const DrmSupport &drm = to_src ? drm_out() : drm_in();
  GstCaps *result = gst_caps_new_empty();
  for (const char *memory : {GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, GST_CAPS_FEATURE_MEMORY_DMABUF})
    result = append_retargeted(result, caps, formats, memory, drm);
#ifdef EF_HAVE_GSTGL
  result =
      append_retargeted(result, caps, to_src ? EF_CONVERT_GL_OUT_FORMATS : EF_CONVERT_IN_FORMATS,
                        GST_CAPS_FEATURE_MEMORY_GL_MEMORY, drm);
#endif
  return apply_caps_filter(narrow_to_limit(result, cpu_size_limit()), filter);
}

// A dma-buf layout efconvert cannot read is named on the bus, not only
// refused as "not-negotiated".
gboolean gst_ef_convert_accept_caps(GstBaseTransform *trans, GstPadDirection direction,
                                    GstCaps *caps) {
  return accept_caps_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, caps,
                                   drm_in());
}

// Without a size from downstream, keep the input's (turned) size.
GstCaps *gst_ef_convert_fixate_caps(GstBaseTransform *trans, GstPadDirection direction,
                                    GstCaps *caps, GstCaps *othercaps) {
  othercaps = gst_caps_truncate(gst_caps_make_writable(othercaps));
  if (direction == GST_PAD_SINK) {
    GstStructure *in = gst_caps_get_structure(caps, 0);
    GstStructure *out = gst_caps_get_structure(othercaps, 0);
    gint w = 0, h = 0;
    gst_structure_get_int(in, "width", &w);
    gst_structure_get_int(in, "height", &h);
    GstVideoOrientationMethod dir;
    {
      std::lock_guard lock(state_of(trans).lock);
      dir = effective_direction(state_of(trans).settings);
    }
    if (direction_swaps_axes(dir))
      std::swap(w, h);
    if (w > 0)
      gst_structure_fixate_field_nearest_int(out, "width", w);
    if (h > 0)
      gst_structure_fixate_field_nearest_int(out, "height", h);
    const GValue *rate = gst_structure_get_value(in, "framerate");
    if (rate && gst_structure_has_field(out, "framerate") && GST_VALUE_HOLDS_FRACTION(rate))
      gst_structure_fixate_field_nearest_fraction(out, "framerate",
                                                  gst_value_get_fraction_numerator(rate),
                                                  gst_value_get_fraction_denominator(rate));
  }
  return gst_caps_fixate(othercaps);
}

FrameMemory memory_of(GstCaps *caps) {
  GstCapsFeatures *f = gst_caps_get_features(caps, 0);
  if (f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY))
    return FrameMemory::Gl;
  if (f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_DMABUF))
    return FrameMemory::DmaBuf;
  return FrameMemory::System;
}

std::unique_ptr<ConvertBackend> chosen(GstEfConvert *self, std::unique_ptr<ConvertBackend> backend,
                                       const std::string &reason) {
  GST_INFO_OBJECT(self, "backend %s: %s", backend->name(), reason.c_str());
  std::lock_guard lock(state_of(self).lock);
  state_of(self).reason = reason;
  return backend;
}

#ifdef EF_HAVE_GSTGL
// The GL backend, or why not.
Result<std::unique_ptr<ConvertBackend>> try_gl_backend(GstEfConvert *self, const Settings &st) {
  ConvertState &s = state_of(self);
  auto context = s.gl.ensure(GST_ELEMENT(self));
  if (!context)
    return context.error();
  const SizeLimit limit = gl_size_limit(*context);
  for (const GstVideoInfo *info : {&s.in_info, &s.out_info})
    for (gint side : {GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info)})
      if (side > limit.max_side)
        return Error{E2BIG, "a side of " + std::to_string(side) + " exceeds " + limit.what + " " +
                                std::to_string(limit.max_side)};
  return make_gl_backend(GST_ELEMENT(self), *context, s.in_info, s.out_info, st.cache_capacity);
}

// This machine as backend=auto sees it for these caps. EF_GL_RENDERER_KIND
// (hardware, software) overrides what the renderer's name says.
Machine describe_machine(GstEfConvert *self, const Settings &st, GstCaps *incaps,
                         GstCaps *outcaps) {
  Machine m;
  m.in = memory_of(incaps);
  m.out = memory_of(outcaps);
  // The cores the CPU backend will use: n-threads caps them.
  const guint online = std::max(1u, g_get_num_processors());
  m.cores = st.n_threads == 0 ? online : std::min(st.n_threads, online);
  auto context = state_of(self).gl.ensure(GST_ELEMENT(self));
  if (!context) {
    m.renderer = context.error().message;
    return m;
  }
  m.renderer = state_of(self).gl.renderer();
  m.gl = gl_kind_of(m.renderer, g_getenv("EF_GL_RENDERER_KIND"));
  return m;
}
#endif

// The backend for these caps: the one asked for, else what the frame path
// costs on this machine says (backend_choice), timing both where that is
// not clear-cut (backend_trial). Logs which and why.
std::unique_ptr<ConvertBackend> make_backend(GstEfConvert *self, const Settings &st,
                                             GstCaps *incaps, GstCaps *outcaps) {
  ConvertState &s = state_of(self);
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU && is_gl_caps(outcaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("backend=cpu cannot output GL memory"),
                      ("use backend=gl or auto"));
    return nullptr;
  }
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU)
    return chosen(self, make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                  "asked for");
#ifdef EF_HAVE_GSTGL
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    auto gl = try_gl_backend(self, st);
    if (gl)
      return chosen(self, std::move(gl).value(), "asked for");
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                      ("backend=gl is not available: %s", gl.error().message.c_str()), (nullptr));
    return nullptr;
  }
  const Machine machine = describe_machine(self, st, incaps, outcaps);
  Choice choice = choose_backend(machine);
  if (choice.pick != Pick::Cpu) {
    auto gl = try_gl_backend(self, st);
    if (gl && choice.pick == Pick::Gl)
      return chosen(self, std::move(gl).value(), choice.reason);
    if (gl) {
      std::lock_guard lock(s.lock);
      s.reason.clear();  // the trial says why
      return make_trial_backend(
          GST_ELEMENT(self),
          make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
          std::move(gl).value(), machine, choice.reason);
    }
    choice.reason = "the GL backend is not available: " + gl.error().message;
  }
  return chosen(self, make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                choice.reason);
#else
  (void)incaps;
  (void)outcaps;
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    GST_ELEMENT_ERROR(self, CORE, NOT_IMPLEMENTED, ("backend=gl: built without GstGL"), (nullptr));
    return nullptr;
  }
  return chosen(self, make_cpu_backend(s.in_info, s.out_info, st.cache_capacity, st.n_threads),
                "built without GstGL");
#endif
}

// The largest frame the backend that must run can take: the GL context's
// where only GL will do, else the CPU path's (auto takes the CPU for frames
// beyond the GL context's limit).
SizeLimit size_limit(GstEfConvert *self, const Settings &st, GstCaps *incaps, GstCaps *outcaps) {
#ifdef EF_HAVE_GSTGL
  const bool must_gl =
      st.backend == GST_EF_CONVERT_BACKEND_GL || is_gl_caps(incaps) || is_gl_caps(outcaps);
  if (must_gl)
    if (auto context = state_of(self).gl.ensure(GST_ELEMENT(self)))
      return gl_size_limit(*context);
#else
  (void)self;
  (void)st;
  (void)incaps;
  (void)outcaps;
#endif
  return cpu_size_limit();
}

void drain_held(GstEfConvert *self);

gboolean gst_ef_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  // A renegotiation without a caps event (a property that changes the
  // output, a reconfigure from downstream) replaces the backend: the frames
  // it has in flight go first, under the caps they were made for (the base
  // class sets the new source caps after this returns).
  drain_held(self);
  const Settings settings = copy_settings(s);
  // Sizes are checked before any GstVideoInfo, which cannot describe the largest.
  const SizeLimit limit = size_limit(self, settings, incaps, outcaps);
  for (GstCaps *caps : {incaps, outcaps})
    if (const std::string problem = size_problem(caps, limit); !problem.empty())
      return refuse_caps(GST_ELEMENT(self), problem, caps);
  auto caps = negotiated_caps(GST_ELEMENT(self), incaps, outcaps, &drm_in(), &drm_out());
  if (!caps)
    return FALSE;
  s.in_info = caps->in.info;
  s.out_info = caps->out.info;
  auto backend = make_backend(self, settings, incaps, outcaps);
  if (!backend)
    return FALSE;
  replace_backend(s, std::move(backend));
  GST_INFO_OBJECT(self, "%s -> %s on %s", GST_VIDEO_INFO_NAME(&s.in_info),
                  GST_VIDEO_INFO_NAME(&s.out_info), s.backend->name());
  return TRUE;
}

gboolean gst_ef_convert_propose_allocation(GstBaseTransform *trans, GstQuery *decide,
                                           GstQuery *query) {
  // Padded layouts and crops arrive as metas: no copy upstream to fix them.
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  gst_query_add_allocation_meta(query, GST_VIDEO_CROP_META_API_TYPE, nullptr);
  // A frame in flight keeps its input until it is read back: upstream's
  // pool (a decoder's) needs that many buffers more than it would.
  const guint depth = readback_depth(state_of(trans));
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo info;
  if (depth > 0 && caps && gst_query_get_n_allocation_pools(query) == 0 &&
      gst_video_info_from_caps(&info, caps))
    gst_query_add_allocation_pool(query, nullptr, guint(info.size), depth, 0);
  return GST_BASE_TRANSFORM_CLASS(parent_class)->propose_allocation(trans, decide, query);
}

#ifdef EF_HAVE_GSTGL
// GL textures out: a downstream GstGLBufferPool, else one of ours.
gboolean decide_gl_allocation(GstBaseTransform *trans, GstQuery *query, GstCaps *caps,
                              const GstVideoInfo &info) {
  auto context = state_of(trans).gl.ensure(GST_ELEMENT(trans));
  if (!context) {
    GST_ELEMENT_ERROR(trans, RESOURCE, FAILED, ("%s", context.error().message.c_str()), (nullptr));
    return FALSE;
  }
  GstBufferPool *pool = nullptr;
  guint size = guint(info.size), min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
  if (pool && !GST_IS_GL_BUFFER_POOL(pool)) {
    gst_object_unref(pool);
    pool = nullptr;
  }
  const bool own = pool == nullptr;
  if (own)
    pool = gst_gl_buffer_pool_new(*context);
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, MAX(size, guint(info.size)), min, max);
  keep_one_texture_free(config, own);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  ObjectPtr<GstGLMemoryAllocator> allocator(gst_gl_memory_allocator_get_default(*context));
  gst_buffer_pool_config_set_allocator(config, GST_ALLOCATOR(allocator.get()), nullptr);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    GST_ELEMENT_ERROR(trans, RESOURCE, SETTINGS, ("Cannot configure the GL output pool"),
                      (nullptr));
    return FALSE;
  }
  if (offered)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool(query, pool, size, min, max);
  gst_object_unref(pool);
  return TRUE;
}
#endif

// Output buffers: a downstream pool when one is offered, else our own pool
// of fd-backed memory (memfd, or a dma-buf heap where one exists); GL
// textures when downstream asked for GL memory.
gboolean gst_ef_convert_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  auto parsed = caps ? parse_video_caps(caps) : Result<VideoCaps>(Error{EINVAL, "no caps"});
  if (!parsed)
    return FALSE;
  const GstVideoInfo &info = parsed->info;
#ifdef EF_HAVE_GSTGL
  if (is_gl_caps(caps))
    return decide_gl_allocation(trans, query, caps, info);
#endif
  GstBufferPool *pool = nullptr;
  guint size = guint(info.size), min = 2, max = 0;
  const bool offered = gst_query_get_n_allocation_pools(query) > 0;
  if (offered)
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
  // Outputs held behind read-backs in flight are buffers downstream's
  // count does not know of.
  const guint depth = readback_depth(state_of(trans));
  min += depth;
  if (max != 0)
    max += depth;
  const bool own = pool == nullptr;
  if (own)
    pool = gst_video_buffer_pool_new();
  size = MAX(size, guint(info.size));
  CapsPtr layout(pool_caps(caps, *parsed));
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, layout.get(), size, min, max);
  if (own) {
    ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
    gst_buffer_pool_config_set_allocator(config, allocator.get(), nullptr);
    GST_INFO_OBJECT(trans, "own output pool of %s buffers",
                    gst_ef_fd_allocator_get_source(GST_EF_FD_ALLOCATOR(allocator.get())));
  }
  if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr))
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    // A pool may adjust the config; take its word if it still fits.
    config = gst_buffer_pool_get_config(pool);
    if (!gst_buffer_pool_config_validate_params(config, layout.get(), size, min, max) ||
        !gst_buffer_pool_set_config(pool, config)) {
      gst_object_unref(pool);
      GST_ELEMENT_ERROR(trans, RESOURCE, SETTINGS, ("Cannot configure the output pool"), (nullptr));
      return FALSE;
    }
  }
  if (offered)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool(query, pool, size, min, max);
  gst_object_unref(pool);
  return TRUE;
}

// The source rectangle of this frame: its crop meta, then the crop property
// inside it.
GstVideoRectangle frame_crop(GstBuffer *in, const GstVideoInfo &info, const Settings &settings) {
  GstVideoRectangle crop{0, 0, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info)};
  if (GstVideoCropMeta *meta = gst_buffer_get_video_crop_meta(in))
    crop = {gint(meta->x), gint(meta->y), gint(meta->width), gint(meta->height)};
  if (settings.crop.w != 0 || settings.crop.h != 0)
    crop = {crop.x + settings.crop.x, crop.y + settings.crop.y, settings.crop.w, settings.crop.h};
  return crop;
}

Result<ConvertParams> plan_frame(ConvertState &s, GstBuffer *in, const Settings &settings) {
  auto plan = plan_conversion(GST_VIDEO_INFO_WIDTH(&s.in_info), GST_VIDEO_INFO_HEIGHT(&s.in_info),
                              frame_crop(in, s.in_info, settings),
                              GST_VIDEO_INFO_WIDTH(&s.out_info), GST_VIDEO_INFO_HEIGHT(&s.out_info),
                              settings.letterbox, effective_direction(settings));
  if (!plan)
    return plan;
  plan->method = settings.method == GST_EF_CONVERT_METHOD_NEAREST ? ScaleMethod::Nearest
                                                                  : ScaleMethod::Bilinear;
  const guint32 c = settings.fill_color;
  plan->fill = {uint8_t(c >> 16), uint8_t(c >> 8), uint8_t(c), uint8_t(c >> 24)};
  plan->matrix = s.in_info.colorimetry.matrix;
  plan->range = s.in_info.colorimetry.range;
  std::lock_guard lock(s.lock);
  s.last_plan = *plan;
  return plan;
}

GstFlowReturn gst_ef_convert_transform(GstBaseTransform *trans, GstBuffer *in, GstBuffer *out) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  GstElement *element = GST_ELEMENT(self);
  auto layout = locate_planes(in, s.in_info);
  if (!layout)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid input frame: " + layout.error().message);
  const Settings settings = copy_settings(s);  // once per frame
  auto params = plan_frame(s, in, settings);
  if (!params)
    return refuse_frame(element, s.errors, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS,
                        "Invalid crop: " + params.error().message);
  // A frame that cannot be read (unmappable memory, a closed fd) fails here.
  const size_t flying = s.backend->in_flight();
  auto done = s.backend->convert(in, *layout, out, *params);
  s.last_in_flight = s.backend->in_flight() > flying;
  if (!done)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                        "Conversion failed: " + done.error().message,
                        std::string("backend ") + s.backend->name());
  s.errors.good_frame();
  s.stats.add(kFrames);
  gst_buffer_add_ef_transform_meta(out, &params->crop, &params->content, params->direction);
  GError *raw = nullptr;
  if (!gst_buffer_add_ef_identity_meta(out, &raw)) {
    ErrorPtr error(raw);
    GST_LOG_OBJECT(self, "output carries no identity: %s", error->message);
  }
  return GST_FLOW_OK;
}

// The oldest held output, its read-back completed where it was in flight.
GstFlowReturn release_oldest(GstEfConvert *self, GstBuffer **out) {
  ConvertState &s = state_of(self);
  const Held held = s.held.front();
  s.held.pop_front();
  if (held.in_flight) {
    auto done = s.backend->complete_oldest();
    if (!done || *done != held.buffer) {
      gst_buffer_unref(held.buffer);
      return refuse_frame(
          GST_ELEMENT(self), s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "Read-back failed: " + (done ? std::string("frames out of order") : done.error().message),
          std::string("backend ") + s.backend->name());
    }
  }
  *out = held.buffer;
  return GST_FLOW_OK;
}

// Pipelined read-back (readback-depth N > 0): an output whose bytes are on
// their way from the GPU is held, and pushed once N later frames have been
// rendered, so the streaming thread renders frame k + N while the GPU still
// reads frame k back. Outputs after a held one are held too: order is kept.
GstFlowReturn gst_ef_convert_generate_output(GstBaseTransform *trans, GstBuffer **outbuf) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  s.last_in_flight = false;
  const GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(parent_class)->generate_output(trans, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (*outbuf && (s.last_in_flight || !s.held.empty())) {
    s.held.push_back({*outbuf, s.last_in_flight});
    *outbuf = nullptr;
  }
  // The base class asks again while we return buffers: every output beyond
  // the depth goes now (the depth may just have been lowered).
  if (s.held.size() > readback_depth(s))
    return release_oldest(self, outbuf);
  return GST_FLOW_OK;
}

// A flush or a stop: outputs in flight are forgotten, never pushed.
void drop_held(ConvertState &s) {
  if (s.held.empty())
    return;
  if (s.backend)
    s.backend->drop_in_flight();
  for (const Held &held : s.held)
    gst_buffer_unref(held.buffer);
  GST_DEBUG("dropped %zu held outputs", s.held.size());
  s.held.clear();
}

// Every held output, read back and pushed: before EOS, caps, a segment or
// any other serialized event, which must not overtake them. Once a push
// fails (flushing, not linked) the rest are dropped.
void drain_held(GstEfConvert *self) {
  ConvertState &s = state_of(self);
  while (!s.held.empty()) {
    GstBuffer *out = nullptr;
    if (release_oldest(self, &out) != GST_FLOW_OK)
      continue;
    const GstFlowReturn pushed = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
    if (pushed != GST_FLOW_OK) {
      GST_DEBUG_OBJECT(self, "drain: push returned %s", gst_flow_get_name(pushed));
      drop_held(s);
    }
  }
}

// Metas describing the input's geometry or bytes do not describe the output.
gboolean gst_ef_convert_transform_meta(GstBaseTransform *, GstBuffer *, GstMeta *meta,
                                       GstBuffer *) {
  const GstMetaInfo *info = meta->info;
  const gchar *const *tags = gst_meta_api_type_get_tags(info->api);
  return !tags || !*tags;  // only tag-less metas (e.g. plain timestamps/metadata) pass
}

gboolean gst_ef_convert_sink_event(GstBaseTransform *trans, GstEvent *event) {
  ConvertState &s = state_of(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP)
    drop_held(s);
  else if (guint(GST_EVENT_TYPE(event)) & guint(GST_EVENT_TYPE_SERIALIZED))
    drain_held(GST_EF_CONVERT(trans));
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    if (s.backend)
      s.backend->sync_stats();
    s.stats.post(GST_ELEMENT(trans));
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
    GstTagList *tags;
    gst_event_parse_tag(event, &tags);
    GstVideoOrientationMethod method;
    if (gst_video_orientation_from_tag(tags, &method)) {
      std::lock_guard lock(s.lock);
      s.settings.tag_direction = method;
    }
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->sink_event(trans, event);
}

gboolean gst_ef_convert_stop(GstBaseTransform *trans) {
  drop_held(state_of(trans));
  replace_backend(state_of(trans), nullptr);
  state_of(trans).errors.reset();
  return TRUE;
}

#ifdef EF_HAVE_GSTGL
void gst_ef_convert_set_context(GstElement *element, GstContext *context) {
  state_of(element).gl.set_context(element, context);
  GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

#endif

// Upstream's latency plus, with a pipelined read-back, the frames an output
// may be held: readback-depth frame durations. Unknown without a frame rate
// (nothing added, logged); a GL-memory output and the CPU backend never
// read back.
gboolean answer_latency(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
  if (!GST_BASE_TRANSFORM_CLASS(parent_class)->query(trans, direction, query))
    return FALSE;
  ConvertState &s = state_of(trans);
  const guint depth = readback_depth(s);
  GstCaps *caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans));
  const bool gl_out = caps && is_gl_caps(caps);
  if (caps)
    gst_caps_unref(caps);
  bool reads_back;  // only the GL backend reads back (the CPU writes in place)
  {
    std::lock_guard lock(s.lock);
    reads_back = s.backend && std::string(s.backend->name()) == "gl";
  }
  if (depth == 0 || gl_out || !reads_back)
    return TRUE;
  const gint fps_n = GST_VIDEO_INFO_FPS_N(&s.in_info), fps_d = GST_VIDEO_INFO_FPS_D(&s.in_info);
  if (fps_n <= 0 || fps_d <= 0) {
    GST_INFO_OBJECT(trans, "readback-depth %u: latency unknown without a frame rate", depth);
    return TRUE;
  }
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency(query, &live, &min, &max);
  const GstClockTime held = gst_util_uint64_scale_int(GST_SECOND * depth, fps_d, fps_n);
  gst_query_set_latency(query, live, min + held, GST_CLOCK_TIME_IS_VALID(max) ? max + held : max);
  GST_DEBUG_OBJECT(trans, "latency + %" GST_TIME_FORMAT " for %u frames held", GST_TIME_ARGS(held),
                   depth);
  return TRUE;
}

gboolean gst_ef_convert_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
#ifdef EF_HAVE_GSTGL
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      state_of(trans).gl.handle_query(GST_ELEMENT(trans), query))
    return TRUE;
#endif
  if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC)
    return answer_latency(trans, direction, query);
  return query_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, query,
                             drm_in());
}

bool parse_crop(const GValue *value, GstVideoRectangle &crop) {
  if (!GST_VALUE_HOLDS_ARRAY(value) || gst_value_array_get_size(value) != 4)
    return false;
  gint v[4];
  for (guint i = 0; i < 4; ++i) {
    const GValue *item = gst_value_array_get_value(value, i);
    if (!G_VALUE_HOLDS_INT(item))
      return false;
    v[i] = g_value_get_int(item);
  }
  crop = {v[0], v[1], v[2], v[3]};
  return true;
}

void set_crop_value(GValue *value, const GstVideoRectangle &crop) {
  for (gint v : {crop.x, crop.y, crop.w, crop.h}) {
    GValue item = G_VALUE_INIT;
    g_value_init(&item, G_TYPE_INT);
    g_value_set_int(&item, v);
    gst_value_array_append_value(value, &item);
    g_value_unset(&item);
  }
}

void gst_ef_convert_set_property(GObject *object, guint id, const GValue *value,
                                 GParamSpec *pspec) {
  auto *self = GST_EF_CONVERT(object);
  ConvertState &s = state_of(self);
  bool renegotiate = false;
  {
    std::lock_guard lock(s.lock);
    Settings &st = s.settings;
    switch (id) {
      case PROP_BACKEND:
        st.backend = GstEfConvertBackend(g_value_get_enum(value));
        break;
      case PROP_METHOD:
        st.method = GstEfConvertMethod(g_value_get_enum(value));
        break;
      case PROP_LETTERBOX:
        st.letterbox = g_value_get_boolean(value);
        break;
      case PROP_FILL_COLOR:
        st.fill_color = g_value_get_uint(value);
        break;
      case PROP_CROP:
        if (!parse_crop(value, st.crop))
          g_warning("efconvert: crop must be an array of 4 integers <x, y, width, height>");
        break;
      case PROP_VIDEO_DIRECTION:
        st.direction = GstVideoOrientationMethod(g_value_get_enum(value));
        renegotiate = true;  // a quarter turn swaps the output's default size
        break;
      case PROP_CACHE_CAPACITY:
        st.cache_capacity = g_value_get_uint(value);
        if (s.backend)
          s.backend->set_cache_capacity(st.cache_capacity);
        break;
      case PROP_N_THREADS:
        st.n_threads = g_value_get_uint(value);
        break;
      case PROP_MAX_ERRORS:
        s.errors.set_max_errors(g_value_get_int(value));
        break;
      case PROP_READBACK_DEPTH:
        st.readback_depth = g_value_get_uint(value);
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        break;
    }
  }
  if (renegotiate)
    gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
}

void gst_ef_convert_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  ConvertState &s = state_of(object);
  if (id == PROP_MAX_ERRORS) {
    g_value_set_int(value, s.errors.max_errors());
    return;
  }
  if (s.stats.get_property(PROP_FIRST_COUNTER, id, value))
    return;
  std::lock_guard lock(s.lock);
  const Settings &st = s.settings;
  const ConvertParams &plan = s.last_plan;
  switch (id) {
    case PROP_BACKEND:
      g_value_set_enum(value, st.backend);
      break;
    case PROP_BACKEND_IN_USE:
      g_value_set_string(value, s.backend ? s.backend->name() : "none");
      break;
    case PROP_BACKEND_REASON: {
      const std::string own = s.backend ? s.backend->reason() : std::string();
      g_value_set_string(value, !s.backend ? "" : own.empty() ? s.reason.c_str() : own.c_str());
      break;
    }
    case PROP_METHOD:
      g_value_set_enum(value, st.method);
      break;
    case PROP_LETTERBOX:
      g_value_set_boolean(value, st.letterbox);
      break;
    case PROP_FILL_COLOR:
      g_value_set_uint(value, st.fill_color);
      break;
    case PROP_CROP:
      set_crop_value(value, st.crop);
      break;
    case PROP_VIDEO_DIRECTION:
      g_value_set_enum(value, st.direction);
      break;
    case PROP_CACHE_CAPACITY:
      g_value_set_uint(value, st.cache_capacity);
      break;
    case PROP_N_THREADS:
      g_value_set_uint(value, st.n_threads);
      break;
    case PROP_READBACK_DEPTH:
      g_value_set_uint(value, st.readback_depth);
      break;
    case PROP_LETTERBOX_SCALE: {
      const bool swap = direction_swaps_axes(plan.direction);
      const gint turned_w = swap ? plan.crop.h : plan.crop.w;
      g_value_set_double(value, turned_w > 0 ? double(plan.content.w) / turned_w : 0.0);
      break;
    }
    case PROP_LETTERBOX_X:
      g_value_set_int(value, plan.content.x);
      break;
    case PROP_LETTERBOX_Y:
      g_value_set_int(value, plan.content.y);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
}

void gst_ef_convert_finalize(GObject *object) {
  delete GST_EF_CONVERT(object)->state;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

GParamFlags rw_flags() {
  return GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}
GParamFlags ro_flags() {
  return GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
}

void install_properties(GObjectClass *object_class) {
  g_object_class_install_property(
      object_class, PROP_BACKEND,
      g_param_spec_enum(
          "backend", "Backend",
          "Where conversions run. auto decides per caps from what a frame costs: GL for GL "
          "memory, the CPU where GL is a software rasterizer (llvmpipe, softpipe) or missing "
          "or would upload and read back every frame, else the faster of both timed on the "
          "first frames (backend-reason says why)",
          GST_TYPE_EF_CONVERT_BACKEND, GST_EF_CONVERT_BACKEND_AUTO,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_BACKEND_IN_USE,
      g_param_spec_string("backend-in-use", "Backend in use",
                          "The backend chosen for the current caps (gl, cpu, or none)", "none",
                          ro_flags()));
  g_object_class_install_property(
      object_class, PROP_BACKEND_REASON,
      g_param_spec_string("backend-reason", "Backend reason",
                          "Why backend-in-use runs: asked for, or what auto found (while auto "
                          "times both backends, it begins with \"trial:\")",
                          "", ro_flags()));
  g_object_class_install_property(
      object_class, PROP_METHOD,
      g_param_spec_enum("method", "Method", "Scaling filter", GST_TYPE_EF_CONVERT_METHOD,
                        GST_EF_CONVERT_METHOD_BILINEAR, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_LETTERBOX,
      g_param_spec_boolean("letterbox", "Letterbox",
                           "Keep the aspect ratio and fill the borders with fill-color; when "
                           "false, stretch to the output size",
                           TRUE, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_FILL_COLOR,
      g_param_spec_uint("fill-color", "Fill color", "Border colour as 0xAARRGGBB", 0, G_MAXUINT32,
                        0xff000000, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_CROP,
      gst_param_spec_array(
          "crop", "Crop",
          "Source rectangle <x, y, width, height> inside the frame (after any "
          "GstVideoCropMeta); <0, 0, 0, 0> for the whole frame",
          g_param_spec_int("value", "value", "value", G_MININT, G_MAXINT, 0,
                           GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
          rw_flags()));
  g_object_class_override_property(object_class, PROP_VIDEO_DIRECTION, "video-direction");
  install_cache_capacity_property(object_class, PROP_CACHE_CAPACITY,
                                  "Entries: sources (EGLImages on GL, memfd mappings on the CPU) "
                                  "and destinations (GL render targets)");
  g_object_class_install_property(
      object_class, PROP_LETTERBOX_SCALE,
      g_param_spec_double("letterbox-scale", "Letterbox scale",
                          "Output pixels per source pixel of the last frame", 0, G_MAXDOUBLE, 0,
                          ro_flags()));
  g_object_class_install_property(
      object_class, PROP_LETTERBOX_X,
      g_param_spec_int("letterbox-x", "Letterbox x", "Left border of the last frame, in pixels", 0,
                       G_MAXINT, 0, ro_flags()));
  g_object_class_install_property(
      object_class, PROP_LETTERBOX_Y,
      g_param_spec_int("letterbox-y", "Letterbox y", "Top border of the last frame, in pixels", 0,
                       G_MAXINT, 0, ro_flags()));
  ConvertStats::install_properties(object_class, PROP_FIRST_COUNTER);
  install_max_errors_property(object_class, PROP_MAX_ERRORS);
  g_object_class_install_property(
      object_class, PROP_N_THREADS,
      g_param_spec_uint("n-threads", "Threads",
                        "Threads that convert a frame on the CPU backend, the streaming thread "
                        "included (0 = one per online CPU); applied when caps are next set",
                        0, 1024, 0, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_READBACK_DEPTH,
      g_param_spec_uint(
          "readback-depth", "Read-back depth",
          "Frames the GL backend reads back from the GPU while it renders later ones, for "
          "plain-memory outputs it cannot render in place: 0 waits for each frame's read-back "
          "in its own chain; N holds an output until N more frames were rendered (or a "
          "serialized event, EOS included, drains them), adding N frame durations of latency "
          "(reported in the LATENCY query) so the streaming thread never waits for the GPU",
          0, kMaxReadbackDepth, 0, rw_flags()));
}

}  // namespace

static void gst_ef_convert_class_init(GstEfConvertClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  object_class->set_property = gst_ef_convert_set_property;
  object_class->get_property = gst_ef_convert_get_property;
  object_class->finalize = gst_ef_convert_finalize;
  install_properties(object_class);

  gst_element_class_set_static_metadata(
      element_class, "ef convert, scale and letterbox", "Filter/Converter/Video/Scaler",
      "Converts colour (BT.601/709/2020, limited or full range), crops, flips, turns, scales and "
      "letterboxes in one pass into model-ready RGB, BGR, RGBA-family, GRAY8 or planar RGBP/BGRP "
      "frames. Each output carries a GstEfTransformMeta mapping it back to the input.",
      "ef developers");
  add_pad_templates(element_class, kSinkCaps, kSrcCaps);

  trans_class->transform_caps = gst_ef_convert_transform_caps;
  trans_class->fixate_caps = gst_ef_convert_fixate_caps;
  trans_class->accept_caps = gst_ef_convert_accept_caps;
  trans_class->set_caps = gst_ef_convert_set_caps;
  trans_class->propose_allocation = gst_ef_convert_propose_allocation;
  trans_class->decide_allocation = gst_ef_convert_decide_allocation;
  trans_class->transform = gst_ef_convert_transform;
  trans_class->generate_output = gst_ef_convert_generate_output;
  trans_class->transform_meta = gst_ef_convert_transform_meta;
  trans_class->sink_event = gst_ef_convert_sink_event;
  trans_class->stop = gst_ef_convert_stop;
  trans_class->query = gst_ef_convert_query;
#ifdef EF_HAVE_GSTGL
  element_class->set_context = gst_ef_convert_set_context;
#endif
}

static void gst_ef_convert_init(GstEfConvert *self) {
  self->state = new ConvertState();
  ConvertState &s = *self->state;
  s.stats.derive([&s](ConvertStats::Values &v) { derive_counters(s, v); });
}
