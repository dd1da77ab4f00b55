// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert: colour conversion, scaling, letterbox, crop and turns into
// model-ready frames in one pass. See docs/ARCHITECTURE.md, "efconvert".
#include "gstefconvert.h"

#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "backend.hpp"
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
#ifdef EF_HAVE_GSTGL
  ElementGlContext gl;
#endif
  FrameErrors errors;
  ConvertStats stats;
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
      {GST_EF_CONVERT_BACKEND_AUTO, "GL on a hardware GPU, else CPU", "auto"},
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

BackendStats operator+(BackendStats a, const BackendStats &b) {
  a.src_hits += b.src_hits;
  a.src_misses += b.src_misses;
  a.dst_hits += b.dst_hits;
  a.dst_misses += b.dst_misses;
  a.uploads += b.uploads;
  a.readbacks += b.readbacks;
  a.declines += b.declines;
  a.refusals += b.refusals;
  return a;
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

#ifdef EF_HAVE_GSTGL
// The GL backend, or why not.
Result<std::unique_ptr<ConvertBackend>> try_gl_backend(GstEfConvert *self, const Settings &st,
                                                       bool require_hardware) {
  ConvertState &s = state_of(self);
  auto context = s.gl.ensure(GST_ELEMENT(self));
  if (!context)
    return context.error();
  if (require_hardware) {
    const std::string renderer = s.gl.renderer();
    if (is_software_renderer(renderer))
      return Error{ENOTSUP, "GL renders in software (" + renderer + ")"};
  }
  const SizeLimit limit = gl_size_limit(*context);
  for (const GstVideoInfo *info : {&s.in_info, &s.out_info})
    for (gint side : {GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info)})
      if (side > limit.max_side)
        return Error{E2BIG, "a side of " + std::to_string(side) + " exceeds " + limit.what + " " +
                                std::to_string(limit.max_side)};
  return make_gl_backend(GST_ELEMENT(self), *context, s.in_info, s.out_info, st.cache_capacity);
}
#endif

// auto: GL where the frames already are in GL or GL runs on hardware, the
// CPU where GL is a software rasterizer or missing. Logs which and why.
std::unique_ptr<ConvertBackend> choose_backend(GstEfConvert *self, const Settings &st,
                                               GstCaps *incaps, GstCaps *outcaps) {
  ConvertState &s = state_of(self);
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU && is_gl_caps(outcaps)) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("backend=cpu cannot output GL memory"),
                      ("use backend=gl or auto"));
    return nullptr;
  }
  if (st.backend == GST_EF_CONVERT_BACKEND_CPU) {
    GST_INFO_OBJECT(self, "backend cpu: asked for");
    return make_cpu_backend(s.in_info, s.out_info, st.cache_capacity);
  }
#ifdef EF_HAVE_GSTGL
  const bool gl_frames = is_gl_caps(incaps) || is_gl_caps(outcaps);
  const bool must_gl = st.backend == GST_EF_CONVERT_BACKEND_GL || gl_frames;
  auto gl = try_gl_backend(self, st, !must_gl);
  if (gl) {
    GST_INFO_OBJECT(self, "backend gl: %s",
                    st.backend == GST_EF_CONVERT_BACKEND_GL
                        ? "asked for"
                        : (gl_frames ? "the frames are GL memory" : "GL runs on hardware"));
    return std::move(gl).value();
  }
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                      ("backend=gl is not available: %s", gl.error().message.c_str()), (nullptr));
    return nullptr;
  }
  GST_INFO_OBJECT(self, "backend cpu: %s", gl.error().message.c_str());
#else
  (void)incaps;
  (void)outcaps;
  if (st.backend == GST_EF_CONVERT_BACKEND_GL) {
    GST_ELEMENT_ERROR(self, CORE, NOT_IMPLEMENTED, ("backend=gl: built without GstGL"), (nullptr));
    return nullptr;
  }
  GST_INFO_OBJECT(self, "backend cpu: built without GstGL");
#endif
  return make_cpu_backend(s.in_info, s.out_info, st.cache_capacity);
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

gboolean gst_ef_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
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
  auto backend = choose_backend(self, settings, incaps, outcaps);
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
  if (auto done = s.backend->convert(in, *layout, out, *params); !done)
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

// Metas describing the input's geometry or bytes do not describe the output.
gboolean gst_ef_convert_transform_meta(GstBaseTransform *, GstBuffer *, GstMeta *meta,
                                       GstBuffer *) {
  const GstMetaInfo *info = meta->info;
  const gchar *const *tags = gst_meta_api_type_get_tags(info->api);
  return !tags || !*tags;  // only tag-less metas (e.g. plain timestamps/metadata) pass
}

gboolean gst_ef_convert_sink_event(GstBaseTransform *trans, GstEvent *event) {
  ConvertState &s = state_of(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
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

gboolean gst_ef_convert_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
#ifdef EF_HAVE_GSTGL
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      state_of(trans).gl.handle_query(GST_ELEMENT(trans), query))
    return TRUE;
#endif
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
      case PROP_MAX_ERRORS:
        s.errors.set_max_errors(g_value_get_int(value));
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
          "Where conversions run. auto picks GL on a hardware GPU and the CPU where "
          "GL is a software rasterizer (llvmpipe, softpipe) or missing",
          GST_TYPE_EF_CONVERT_BACKEND, GST_EF_CONVERT_BACKEND_AUTO,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_BACKEND_IN_USE,
      g_param_spec_string("backend-in-use", "Backend in use",
                          "The backend chosen for the current caps (gl, cpu, or none)", "none",
                          ro_flags()));
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
