// SPDX-License-Identifier: LGPL-2.1-or-later
// efupload: fd-backed frames (dma-bufs, memfds) into GL textures through the
// retaining import cache, one import per buffer of a ring, not per frame.
// See docs/ARCHITECTURE.md, "efupload".
#include "gstefupload.h"

#include <gst/allocators/allocators.h>
#include <gst/ef/gstefidentitymeta.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <string>

#include "common/cache_capacity.hpp"
#include "common/caps_filter.hpp"
#include "common/dma_drm_caps.hpp"
#include "common/element_stats.hpp"
#include "common/frame_errors.hpp"
#include "common/gap_buffers.hpp"
#include "common/gl_limits.hpp"
#include "common/gst_ptr.hpp"
#include "common/pad_templates.hpp"
#include "common/refused_caps.hpp"
#include "common/property_checks.hpp"
#include "common/said_once.hpp"
#include "common/size_limits.hpp"
#include "gl_uploader.hpp"
#include "common/output_metas.hpp"

GST_DEBUG_CATEGORY_STATIC(gst_ef_upload_debug);
#define GST_CAT_DEFAULT gst_ef_upload_debug

using namespace ef;
using namespace ef::gst;

namespace {

#define EF_UPLOAD_FORMATS "{ NV12, I420, YUY2, RGBA, BGRA, RGBx, BGRx, RGB, GRAY8 }"

constexpr const char *kSinkCaps =
    EF_DMABUF_CAPS(EF_UPLOAD_FORMATS) ";" GST_VIDEO_CAPS_MAKE(EF_UPLOAD_FORMATS);
// Pass-through output is the input's own memory, in the form it came in.
constexpr const char *kSrcCaps =
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, EF_UPLOAD_FORMATS)
    ", texture-target = (string) 2D;" EF_DMABUF_CAPS(EF_UPLOAD_FORMATS) ";" GST_VIDEO_CAPS_MAKE(
        EF_UPLOAD_FORMATS);

struct UploadCounters {
  enum Counter : guint {
    kFrames,
    kImports,
    kHits,
    kMisses,
    kEvictions,
    kUncached,
    kRefusals,
    kDeclines,
    kUploads,
    kBytesCopied,
    kPassthrough,
    kDropped,
    kCount,
  };
  static constexpr const char *kName = "efupload-stats";
  static constexpr std::array<CounterSpec, kCount> kSpecs = {{
      {kFrames, "frames", "Frames processed"},
      {kImports, "imports", "Frames imported into EGL (cache misses that imported)"},
      {kHits, "hits", "Import cache hits: frames served from an earlier import"},
      {kMisses, "misses", "Import cache misses"},
      {kEvictions, "evictions", "Imports evicted from the cache (least recently used)"},
      {kUncached, "uncached", "Imports used once because nothing could be retained"},
      {kRefusals, "refusals", "Lookups refused because the identity no longer matched its source"},
      {kDeclines, "declines",
       "Frames not imported (system memory, refused or failed import) and uploaded"},
      {kUploads, "uploads", "Frames copied into pooled textures"},
      {kBytesCopied, "bytes-copied", "Bytes copied by uploads"},
      {kPassthrough, "passthrough",
       "Frames passed on in their own memory because downstream did not take GL "
       "memory (no upload, no import)"},
      {kDropped, "dropped", "Bad input frames dropped with a warning (see max-errors)"},
  }};
};
using UploadStats = ElementStats<UploadCounters>;
using enum UploadCounters::Counter;

constexpr guint PROP_CACHE_CAPACITY = 1;
constexpr guint PROP_STATS = 2;  // the counters, one structure
constexpr guint PROP_MAX_ERRORS = PROP_STATS + 1;

// Settings (cache-capacity, max-errors) live in the cache and the bad-frame
// rule, which take them from any thread; the rest is the stream's state,
// made in set_caps and gl_start and dropped in stop and gl_stop.
struct UploadState {
  explicit UploadState(GstElement *element) : gl(element, gst_ef_upload_debug) {}

  GstVideoInfo in_info{};
  GstVideoInfo out_info{};
  // The dma-buf layouts the EGL import takes (per-plane imports: LINEAR).
  DrmSupport drm{EF_UPLOAD_FORMATS};
  bool have_caps = false;
  bool gl_output = false;
  GlUploader gl;  // the GL output: imports, else uploads
  FrameErrors errors;
  UploadStats stats;
  RefusedCaps refused;  // forgotten by stop: a new run says it again
};

}  // namespace

struct _GstEfUpload {
  GstGLBaseFilter parent;
  UploadState *state;
};

#define gst_ef_upload_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE(GstEfUpload, gst_ef_upload, GST_TYPE_GL_BASE_FILTER,
                        GST_DEBUG_CATEGORY_INIT(gst_ef_upload_debug, "efupload", 0,
                                                "ef zero-copy upload"))
GST_ELEMENT_REGISTER_DEFINE(efupload, "efupload", GST_RANK_NONE, GST_TYPE_EF_UPLOAD)

namespace {

UploadState &state_of(gpointer self) {
  return *GST_EF_UPLOAD(self)->state;
}

// The counters the GL output (its imports, uploads and cache) and the
// bad-frame rule keep themselves.
void derive_counters(const UploadState &s, UploadStats::Values &v) {
  const GlUploadStats u = s.gl.stats();
  v[kImports] = u.imports;
  v[kDeclines] = u.declines;
  v[kUploads] = u.uploads;
  v[kBytesCopied] = u.bytes_copied;
  v[kHits] = u.cache.hits;
  v[kMisses] = u.cache.misses;
  v[kEvictions] = u.cache.evictions;
  v[kUncached] = u.cache.uncached;
  v[kRefusals] = u.cache.refusals;
  v[kDropped] = s.errors.dropped();
}

// Output caps of a sink caps structure: the GL variant first (preferred),
// then the input memory as it is (pass-through with the identity meta).
GstCaps *caps_towards_src(GstCaps *caps, const DrmSupport &drm) {
  GstCaps *out = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstStructure *s = plain_structure_of(gst_caps_get_structure(caps, i), drm);
    if (!s)
      continue;  // dma-buf layouts the import does not take: pass-through only
    gst_structure_set(s, "texture-target", G_TYPE_STRING, "2D", nullptr);
    gst_caps_append_structure_full(
        out, s, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
  }
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    gst_caps_append_structure_full(out, gst_structure_copy(gst_caps_get_structure(caps, i)),
                                   f ? gst_caps_features_copy(f) : nullptr);
  }
  return out;
}

// GL output is made from dma-bufs in the layouts the import takes, or from
// system memory; other output is the input as it is.
GstCaps *caps_towards_sink(GstCaps *caps, const DrmSupport &drm) {
  GstCaps *out = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    const GstStructure *s = gst_caps_get_structure(caps, i);
    if (f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY)) {
      GstStructure *c = gst_structure_copy(s);
      gst_structure_remove_field(c, "texture-target");
      gst_caps_append(
          out, dmabuf_caps_of(c, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_DMABUF, nullptr),
                              drm, true));
      gst_caps_append_structure_full(
          out, c, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY, nullptr));
    } else {
      gst_caps_append_structure_full(out, gst_structure_copy(s),
                                     f ? gst_caps_features_copy(f) : nullptr);
    }
  }
  return out;
}

// The identities of the source bytes, carried on every output frame: the
// input's own meta when upstream attached one, else derived from its memories.
void attach_identity(GstEfUpload *self, GstBuffer *out, GstBuffer *in) {
  if (out == in) {
    if (gst_buffer_get_ef_identity_meta(out))
      return;  // copied along with memories it still describes
    GError *raw = nullptr;
    if (!gst_buffer_add_ef_identity_meta(out, &raw)) {
      ErrorPtr error(raw);
      GST_LOG_OBJECT(self, "frame carries no identity: %s", error->message);
    }
    return;
  }
  put_identity_meta(out, in);
}

// Makes the output frame: the input itself when downstream takes its memory,
// else GL memory showing it (its import, or an upload).
GstFlowReturn gst_ef_upload_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *in,
                                                  GstBuffer **outbuf) {
  auto *self = GST_EF_UPLOAD(trans);
  UploadState &s = state_of(self);
  s.stats.add(kFrames);

  if (!s.gl_output) {
    // Downstream takes the input memory as it is. Only a frame still lacking
    // its identity meta is touched, and only copied (the GstBuffer, not the
    // bytes) when someone else holds it too.
    s.stats.add(kPassthrough);
    if (gst_buffer_get_ef_identity_meta(in)) {
      *outbuf = in;
      return GST_FLOW_OK;
    }
    *outbuf = gst_buffer_is_writable(in) ? in : gst_buffer_copy(in);
    attach_identity(self, *outbuf, *outbuf);
    return GST_FLOW_OK;
  }

  GstFlowReturn ret = s.gl.upload(GST_GL_BASE_FILTER(self)->context, in, s.errors, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  gst_buffer_copy_into(
      *outbuf, in, GstBufferCopyFlags(GST_BUFFER_COPY_FLAGS | GST_BUFFER_COPY_TIMESTAMPS), 0, -1);
  attach_identity(self, *outbuf, in);
  return GST_FLOW_OK;
}

// A GAP buffer goes on as a gap event wherever efupload reads frames
// (gap_buffers); pass-through hands it on as it came.
GstFlowReturn gst_ef_upload_submit_input_buffer(GstBaseTransform *trans, gboolean discont,
                                                GstBuffer *input) {
  if (state_of(trans).gl_output && forward_gap_buffer(trans, input))
    return GST_FLOW_OK;
  return GST_BASE_TRANSFORM_CLASS(parent_class)->submit_input_buffer(trans, discont, input);
}

// The output is made whole in prepare_output_buffer.
GstFlowReturn gst_ef_upload_transform(GstBaseTransform *trans, GstBuffer *, GstBuffer *) {
  state_of(trans).errors.good_frame();
  return GST_FLOW_OK;
}

// Frames are bounded by the CPU path's limit (set_caps refuses beyond it),
// GL textures by the context's too once there is one; answers to
// unfiltered queries are not narrowed (narrow_for_query).
GstCaps *gst_ef_upload_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                      GstCaps *caps, GstCaps *filter) {
  const DrmSupport &drm = state_of(trans).drm;
  if (direction == GST_PAD_SRC)
    return apply_caps_filter(
        narrow_for_query(caps_towards_sink(caps, drm), filter, cpu_size_limit()), filter);
  // Fixed caps are what upstream sends: a layout the import cannot take
  // gets no GL output, and is named (at most pass-through is left).
  refuse_untaken_drm_format(GST_ELEMENT(trans), caps, drm);
  GstCaps *result = caps_towards_src(caps, drm);
  // A caps query on the sink pad asks downstream through this direction too
  // (GstBaseTransform's peer filter): one narrowing bounds both answers.
  if (GstGLContext *context = GST_GL_BASE_FILTER(trans)->context)
    result =
        narrow_for_query(result, filter, gl_size_limit(context), GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
  return apply_caps_filter(narrow_for_query(result, filter, cpu_size_limit()), filter);
}

// A dma-buf layout the import does not take is named on the bus, not only
// refused as "not-negotiated": by caps query (how sources negotiate) and by
// accept-caps (caps sent without asking).
gboolean gst_ef_upload_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
  const gboolean answered = query_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class),
                                                direction, query, state_of(trans).drm);
  if (direction == GST_PAD_SINK)
    refuse_size_in_caps_query(GST_ELEMENT(trans), query, cpu_size_limit());
  return answered;
}

gboolean gst_ef_upload_accept_caps(GstBaseTransform *trans, GstPadDirection direction,
                                   GstCaps *caps) {
  return accept_caps_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, caps,
                                   state_of(trans).drm);
}

// Pass-through uploads nothing: say why, since a user who wanted textures
// sees no import, upload or decline counted.
void explain_pass_through(GstEfUpload *self, GstCaps *incaps, GstCaps *outcaps) {
  GstCaps *gl = gst_caps_truncate(
      caps_towards_src(incaps, state_of(self).drm));  // the GL variant comes first
  const bool accepted = gst_pad_peer_query_accept_caps(GST_BASE_TRANSFORM_SRC_PAD(self), gl);
  GST_INFO_OBJECT(self,
                  "pass-through, no upload or import: %s; output caps %" GST_PTR_FORMAT
                  " (GL caps were %" GST_PTR_FORMAT ")",
                  accepted ? "downstream accepts GL memory but preferred the input's memory"
                           : "downstream does not accept GL memory",
                  outcaps, gl);
  gst_caps_unref(gl);
}

// GstGL holds YUY2 as one RG texel per pixel: at an odd width the last
// pixel's V lies past the texture and would be lost, by import and upload
// alike. Refused rather than served wrong.
std::string texture_problem(const GstVideoInfo &info) {
  if (GST_VIDEO_INFO_FORMAT(&info) != GST_VIDEO_FORMAT_YUY2 || GST_VIDEO_INFO_WIDTH(&info) % 2 == 0)
    return {};
  return "YUY2 of odd width " + std::to_string(GST_VIDEO_INFO_WIDTH(&info)) +
         " cannot become a GL texture: GstGL's YUY2 texture has one texel per pixel, so the last "
         "pixel's V would be lost";
}

// GL output must fit the context's textures; the context is found here when
// negotiation comes before it.
bool within_gl_limit(GstEfUpload *self, GstCaps *incaps) {
  auto *filter = GST_GL_BASE_FILTER(self);
  if (!filter->context && !gst_gl_base_filter_find_gl_context(filter))
    return true;  // no context: GstGLBaseFilter posts its own error
  const std::string problem = size_problem(incaps, gl_size_limit(filter->context));
  return problem.empty() || refuse_caps(GST_ELEMENT(self), problem, incaps);
}

// set_caps's checks and the stream they make; a refusal is posted.
static gboolean configure_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_UPLOAD(trans);
  UploadState &s = state_of(self);
  GstCapsFeatures *f = gst_caps_get_features(outcaps, 0);
  s.gl_output = f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_GL_MEMORY);
  if (s.gl_output && !within_gl_limit(self, incaps))
    return FALSE;
  if (const std::string problem = size_problem(incaps, cpu_size_limit()); !problem.empty())
    return refuse_caps(GST_ELEMENT(self), problem, incaps);
  // Only GL output imports; pass-through takes any layout downstream takes.
  auto caps =
      negotiated_caps(GST_ELEMENT(self), incaps, outcaps, s.gl_output ? &s.drm : nullptr, nullptr);
  if (!caps)
    return FALSE;
  s.in_info = caps->in.info;
  s.out_info = caps->out.info;
  if (s.gl_output)
    if (const std::string problem = texture_problem(s.in_info); !problem.empty()) {
      GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                        ("Cannot upload these frames: %s", problem.c_str()),
                        ("caps %" GST_PTR_FORMAT, incaps));
      return FALSE;
    }
  s.have_caps = true;
  s.gl.set_caps(s.in_info, caps->in.drm.modifier);
  if (s.gl_output)
    GST_INFO_OBJECT(self, "GL output for %" GST_PTR_FORMAT, incaps);
  else
    explain_pass_through(self, incaps, outcaps);
  return GST_BASE_TRANSFORM_CLASS(parent_class)->set_caps(trans, incaps, outcaps);
}

gboolean gst_ef_upload_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  return state_of(trans).refused.set_caps(gst_ef_upload_debug, GST_ELEMENT(trans), 0, incaps,
                                          outcaps,
                                          [&] { return configure_caps(trans, incaps, outcaps); });
}

gboolean gst_ef_upload_propose_allocation(GstBaseTransform *, GstQuery *, GstQuery *query) {
  // Strides and plane offsets come from GstVideoMeta: padded decoder and
  // camera buffers are imported as they are.
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

gboolean gst_ef_upload_gl_start(GstGLBaseFilter *filter) {
  state_of(filter).gl.start();
  return GST_GL_BASE_FILTER_CLASS(parent_class)->gl_start(filter);
}

void gst_ef_upload_gl_stop(GstGLBaseFilter *filter) {
  state_of(filter).gl.stop();
  GST_GL_BASE_FILTER_CLASS(parent_class)->gl_stop(filter);
}

gboolean gst_ef_upload_stop(GstBaseTransform *trans) {
  UploadState &s = state_of(trans);
  forget_sayings(GST_ELEMENT(trans));
  // The stream's state goes; the next start negotiates afresh.
  s.gl.new_stream();
  s.have_caps = false;
  s.gl_output = false;
  s.errors.reset();
  s.refused.forget();
  return GST_BASE_TRANSFORM_CLASS(parent_class)->stop(trans);
}

gboolean gst_ef_upload_sink_event(GstBaseTransform *trans, GstEvent *event) {
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    state_of(trans).stats.post(GST_ELEMENT(trans));
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->sink_event(trans, event);
}

void gst_ef_upload_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  UploadState &s = state_of(object);
  if (!settable_in_state(object, pspec))
    return;
  switch (id) {
    case PROP_CACHE_CAPACITY:
      s.gl.cache().set_capacity(g_value_get_uint(value));
      break;
    case PROP_MAX_ERRORS:
      s.errors.set_max_errors(g_value_get_int(value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
}

void gst_ef_upload_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  UploadState &s = state_of(object);
  if (id == PROP_CACHE_CAPACITY) {
    g_value_set_uint(value, s.gl.cache().capacity());
    return;
  }
  if (id == PROP_MAX_ERRORS) {
    g_value_set_int(value, s.errors.max_errors());
    return;
  }
  if (s.stats.get_property(PROP_STATS, id, value))
    return;
  G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

void gst_ef_upload_finalize(GObject *object) {
  auto *self = GST_EF_UPLOAD(object);
  delete self->state;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

}  // namespace

static void gst_ef_upload_class_init(GstEfUploadClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstGLBaseFilterClass *gl_class = GST_GL_BASE_FILTER_CLASS(klass);

  object_class->set_property = gst_ef_upload_set_property;
  object_class->get_property = gst_ef_upload_get_property;
  object_class->finalize = gst_ef_upload_finalize;

  install_cache_capacity_property(object_class, PROP_CACHE_CAPACITY,
                                  "Imports (EGLImages of input buffers)");
  UploadStats::install_property(object_class, PROP_STATS);
  install_max_errors_property(object_class, PROP_MAX_ERRORS);

  gst_element_class_set_static_metadata(
      element_class, "ef zero-copy upload", "Filter/Video",
      "Imports dma-buf and memfd frames into GL textures once per buffer of a ring, keyed by "
      "buffer identity in a retaining cache, and uploads other frames into pooled textures. "
      "Every output frame carries a GstEfIdentityMeta.",
      "ef developers");
  add_pad_templates(element_class, kSinkCaps, kSrcCaps);

  trans_class->transform_caps = gst_ef_upload_transform_caps;
  trans_class->accept_caps = gst_ef_upload_accept_caps;
  trans_class->query = gst_ef_upload_query;
  trans_class->set_caps = gst_ef_upload_set_caps;
  trans_class->propose_allocation = gst_ef_upload_propose_allocation;
  trans_class->prepare_output_buffer = gst_ef_upload_prepare_output_buffer;
  trans_class->submit_input_buffer = gst_ef_upload_submit_input_buffer;
  trans_class->transform = gst_ef_upload_transform;
  trans_class->stop = gst_ef_upload_stop;
  trans_class->sink_event = gst_ef_upload_sink_event;
  trans_class->passthrough_on_same_caps = FALSE;

  gl_class->supported_gl_api = GstGLAPI(GST_GL_API_OPENGL | GST_GL_API_OPENGL3 | GST_GL_API_GLES2);
  gl_class->gl_start = gst_ef_upload_gl_start;
  gl_class->gl_stop = gst_ef_upload_gl_stop;
}

static void gst_ef_upload_init(GstEfUpload *self) {
  self->state = new UploadState(GST_ELEMENT(self));
  UploadState &s = *self->state;
  s.stats.derive([&s](UploadStats::Values &v) { derive_counters(s, v); });
}
