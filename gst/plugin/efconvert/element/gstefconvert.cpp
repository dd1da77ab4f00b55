// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert: colour conversion, scaling, letterbox, crop and turns into
// model-ready frames in one pass. See docs/ARCHITECTURE.md, "efconvert".
// This file is the GObject and GstBaseTransform glue, its properties and
// the frame path; what it calls is in convert_caps, backend_select (the
// backends' registry), frame_plan, output_pool and held_outputs. It names
// no backend: what it asks of them goes through their registry entries and
// the devices they need (device.hpp).
#include "gstefconvert.h"

#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "efconvert/backends/backend.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "efconvert/backends/backend_select.hpp"
#include "common/cache_capacity.hpp"
#include "common/dma_drm_caps.hpp"
#include "common/element_stats.hpp"
#include "common/frame_errors.hpp"
#include "common/frame_fds.hpp"
#include "common/gap_buffers.hpp"
#include "common/frame_layout.hpp"
#include "common/caps_filter.hpp"
#include "common/gst_ptr.hpp"
#include "common/pad_templates.hpp"
#include "common/property_checks.hpp"
#include "common/said_once.hpp"
#include "common/size_limits.hpp"
#include "efconvert/caps/convert_caps.hpp"
#include "convert_counters.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "convert_state.hpp"
#include "frame_plan.hpp"
#include "efconvert/caps/interlace.hpp"
#include "efconvert/output/output_pool.hpp"
#include "settings_check.hpp"
#include "efconvert/tensors/tensor_caps.hpp"
#include "efconvert/output/tensor_metas.hpp"

GST_DEBUG_CATEGORY(gst_ef_convert_debug);
#define GST_CAT_DEFAULT gst_ef_convert_debug

using namespace ef;
using namespace ef::gst;

namespace {

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
constexpr guint PROP_STATS = 12;  // the counters, one structure
constexpr guint PROP_MAX_ERRORS = PROP_STATS + 1;
constexpr guint PROP_N_THREADS = PROP_MAX_ERRORS + 1;
constexpr guint PROP_BACKEND_REASON = PROP_N_THREADS + 1;
constexpr guint PROP_READBACK_DEPTH = PROP_BACKEND_REASON + 1;
constexpr guint PROP_GL_SHADER = PROP_READBACK_DEPTH + 1;
constexpr guint PROP_GL_SHADER_IN_USE = PROP_GL_SHADER + 1;
constexpr guint PROP_MEAN = PROP_GL_SHADER_IN_USE + 1;
constexpr guint PROP_STD = PROP_MEAN + 1;
constexpr guint PROP_QUANT_SCALE = PROP_STD + 1;
constexpr guint PROP_QUANT_ZERO_POINT = PROP_QUANT_SCALE + 1;
constexpr guint PROP_CHANNEL_ORDER = PROP_QUANT_ZERO_POINT + 1;
constexpr guint PROP_TENSOR_ID = PROP_CHANNEL_ORDER + 1;
constexpr guint PROP_ATTACH_TENSOR = PROP_TENSOR_ID + 1;
constexpr guint PROP_GPU_TIMING = PROP_ATTACH_TENSOR + 1;
constexpr guint PROP_GL_CONTEXTS = PROP_GPU_TIMING + 1;
constexpr guint PROP_KEEP_BORDERS = PROP_GL_CONTEXTS + 1;
constexpr const char *kDefaultTensorId = "input";
constexpr guint kMaxReadbackDepth = 4;
constexpr guint kMaxGlContexts = kMaxGlContextsSetting;

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

GType gst_ef_convert_method_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      // videoscale's nicks and numbers, each number once. GStreamer parses
      // a value by its name before its nick, so the name of
      // nearest-neighbour is "nearest", ef's earlier nick, which still sets it.
      {GST_EF_CONVERT_METHOD_NEAREST, "nearest", "nearest-neighbour"},
      {GST_EF_CONVERT_METHOD_BILINEAR, "Bilinear; a box over each output pixel where it shrinks",
       "bilinear"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertMethod", values));
  return type;
}

GType gst_ef_convert_gl_shader_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_EF_CONVERT_GL_SHADER_AUTO,
       "A compute shader on hardware GL that has them (GL 4.3, GLES 3.1), a fragment shader on "
       "a software rasterizer",
       "auto"},
      {GST_EF_CONVERT_GL_SHADER_FRAGMENT, "A fragment shader drawn into a framebuffer", "fragment"},
      {GST_EF_CONVERT_GL_SHADER_COMPUTE,
       "A compute shader storing whole texels (texels a row shares with a border, byte targets "
       "of one-byte texels and imported outputs are drawn)",
       "compute"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertGlShader", values));
  return type;
}

GType gst_ef_convert_channel_order_get_type(void) {
  static GType type = 0;
  static const GEnumValue values[] = {
      {GST_EF_CONVERT_CHANNEL_ORDER_RGB, "Red, green, blue", "rgb"},
      {GST_EF_CONVERT_CHANNEL_ORDER_BGR, "Blue, green, red (Caffe and OpenCV models)", "bgr"},
      {0, nullptr, nullptr},
  };
  if (g_once_init_enter(&type))
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertChannelOrder", values));
  return type;
}

namespace {

ConvertState &state_of(gpointer self) {
  return *GST_EF_CONVERT(self)->state;
}

// The running backend, or null (the streaming thread, or under stream_lock).
ConvertBackend *backend_of(ConvertState &s) {
  return s.stream ? s.stream->backend.get() : nullptr;
}

// Whether set_caps made a stream (any thread).
bool has_stream(ConvertState &s) {
  std::lock_guard lock(s.stream_lock);
  return s.stream.has_value();
}

// The counters the backends and the bad-frame rule keep themselves.
void derive_counters(ConvertState &s, ConvertStats::Values &v) {
  BackendStats b;
  {
    std::lock_guard lock(s.stream_lock);
    b = s.retired + (backend_of(s) ? backend_of(s)->stats() : BackendStats{});
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
  v[kReadbackGpuNs] = b.readback_gpu_ns;
  v[kGlHandovers] = b.gl_handovers;
  v[kGlThreadNs] = b.gl_thread_ns;
  v[kGlWaitNs] = b.gl_wait_ns;
  v[kGpuWaitNs] = b.gpu_wait_ns;
  v[kGlSourceNs] = b.gl_source_ns;
  v[kGlPassNs] = b.gl_pass_ns;
  v[kGlReadbackNs] = b.gl_readback_ns;
  v[kBordersKept] = b.borders_kept;
}

guint readback_depth(ConvertState &s) {
  std::lock_guard lock(s.lock);
  return s.settings.readback_depth;
}

// Replaces the stream (with none: drops it), keeping what its backend
// counted. The old one goes outside the lock.
void replace_stream(ConvertState &s, std::optional<Stream> next) {
  std::optional<Stream> old;
  {
    std::lock_guard lock(s.stream_lock);
    if (backend_of(s))
      s.retired = s.retired + backend_of(s)->stats();
    old = std::move(s.stream);
    s.stream = std::move(next);
  }
}

Settings copy_settings(ConvertState &s) {
  std::lock_guard lock(s.lock);
  return s.settings;
}

GstCaps *gst_ef_convert_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                       GstCaps *caps, GstCaps *filter) {
  ConvertState &s = state_of(trans);
  bool attach;
  int backend;
  {
    std::lock_guard lock(s.lock);
    attach = s.attach != nullptr;
    backend = s.settings.backend;
  }
  // attach-tensor: the frames go through as they are.
  if (attach)
    return apply_caps_filter(gst_caps_ref(caps), filter);
  GstCaps *other = retarget_caps(direction, caps, filter);
  // A memory that producers take wherever it is allowed (NVDEC's decoders,
  // CUDA memory) is offered upstream only where a backend the setting
  // allows reads it: they would hand the others frames they refuse. Under
  // auto it is, GL-memory outputs included: the CUDA backend on the
  // decoder's own frames, one GL context per element, beats the GL backend
  // on the decoder's GL frames (16 streams on an H200, run18: 3,010
  // frames/s against 1,700).
  if (direction == GST_PAD_SRC)
    for (const MemoryKind &kind : kMemoryKinds)
      if (kind.only_to_readers && !read_by_allowed(backend, kind.memory))
        other = without_memory(other, kind.memory);
  return other;
}

// Input in a format no backend reads (a decoder's 10-bit frames, before
// efconvert read them) went unnamed: "not-negotiated" from upstream and
// nothing from efconvert. A caps query that finds nothing logs why (the
// formats and what efconvert reads, or fields one a buffer); refused caps
// post it as a WARNING, once per reason.
void name_refused_input(GstElement *element, GstCaps *caps, bool post) {
  const std::string message = refused_input_message(element, caps);
  if (message.empty())
    return;
  GST_WARNING_OBJECT(element, "%s; caps %" GST_PTR_FORMAT, message.c_str(), caps);
  static const GQuark quark = g_quark_from_static_string("ef-refused-input");
  if (!post || g_strcmp0(static_cast<const char *>(g_object_get_qdata(G_OBJECT(element), quark)),
                         message.c_str()) == 0)
    return;
  g_object_set_qdata_full(G_OBJECT(element), quark, g_strdup(message.c_str()), g_free);
  GST_ELEMENT_WARNING(element, CORE, NEGOTIATION, ("%s", message.c_str()),
                      ("refused caps %" GST_PTR_FORMAT, caps));
}

// A dma-buf layout efconvert cannot read is named on the bus, not only
// refused as "not-negotiated"; so is a format.
gboolean gst_ef_convert_accept_caps(GstBaseTransform *trans, GstPadDirection direction,
                                    GstCaps *caps) {
  if (accept_caps_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, caps,
                                drm_in()))
    return TRUE;
  if (direction == GST_PAD_SINK)
    name_refused_input(GST_ELEMENT(trans), caps, true);
  return FALSE;
}

// Without a size from downstream, keep the input's (turned) size. Tensor
// dimensions that are no string (dimensions=3:32 unquoted is a flagset)
// are named as given: fixating would change them.
GstCaps *gst_ef_convert_fixate_caps(GstBaseTransform *trans, GstPadDirection direction,
                                    GstCaps *caps, GstCaps *othercaps) {
  const std::string problem = direction == GST_PAD_SINK && !gst_caps_is_empty(othercaps)
                                  ? dimensions_type_problem(gst_caps_get_structure(othercaps, 0))
                                  : std::string();
  if (!problem.empty()) {
    if (first_saying(GST_ELEMENT(trans), problem))
      GST_ELEMENT_ERROR(trans, CORE, NEGOTIATION, ("Unsupported tensor caps: %s", problem.c_str()),
                        ("caps %" GST_PTR_FORMAT, othercaps));
    gst_caps_unref(othercaps);
    return gst_caps_new_empty();
  }
  GstVideoOrientationMethod turn;
  {
    std::lock_guard lock(state_of(trans).lock);
    turn = effective_direction(state_of(trans).settings);
  }
  return fixate_output_caps(direction, caps, othercaps, turn);
}

// Held outputs go before any serialized event (held_outputs).
void drain_held(GstEfConvert *self) {
  ConvertState &s = state_of(self);
  s.held.drain(GST_ELEMENT(self), GST_BASE_TRANSFORM_SRC_PAD(self), backend_of(s), s.errors);
}

// The outputs held when the element left PLAYING, pushed so that the sink
// can preroll again (held_outputs.hpp), on the drain thread, under the
// stream lock as a chain would.
void drain_after_playing(GstElement *element) {
  GstPad *sink = GST_BASE_TRANSFORM_SINK_PAD(element);
  GST_PAD_STREAM_LOCK(sink);
  GST_OBJECT_LOCK(sink);
  const bool flushing = GST_PAD_IS_FLUSHING(sink);  // a flush or a stop drops them
  GST_OBJECT_UNLOCK(sink);
  if (!flushing && !state_of(element).held.playing())
    drain_held(GST_EF_CONVERT(element));
  GST_PAD_STREAM_UNLOCK(sink);
}

// How much the `backend` setting calls for a device of `type`.
DeviceNeed need_of(const DeviceType &type, int backend) {
  DeviceNeed need = DeviceNeed::None;
  for (const BackendEntry *e : allowed_backends(backend))
    if (e->device == &type)
      need = backend != kAutoBackend && e->device_always ? DeviceNeed::Surely : DeviceNeed::Maybe;
  return need;
}

// Each device's hook, told how much the settings call for it (gl_sharing:
// GL's display found early).
void devices_change_state(GstElement *element, ConvertState &s, GstStateChange transition) {
  const BackendSettings settings = backend_settings(copy_settings(s));
  s.devices.each([&](const DeviceType &type, Device &device) {
    device.change_state(element, transition, settings, need_of(type, settings.backend));
  });
}

GstStateChangeReturn gst_ef_convert_change_state(GstElement *element, GstStateChange transition) {
  HeldOutputs &held = state_of(element).held;
  devices_change_state(element, state_of(element), transition);
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED)
    held.left_playing([element] { drain_after_playing(element); });
  const GstStateChangeReturn ret =
      GST_ELEMENT_CLASS(parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING && ret != GST_STATE_CHANGE_FAILURE)
    held.set_playing(true);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    held.join_drain();  // the pads are inactive: a push or a lock returns
  return ret;
}

// The stream set_caps makes of `incaps` -> `outcaps` under `settings`; a
// refusal is posted on the bus.
static gboolean configure_caps(GstEfConvert *self, const Settings &settings, GstCaps *incaps,
                               GstCaps *outcaps) {
  GstBaseTransform *trans = GST_BASE_TRANSFORM(self);
  ConvertState &s = state_of(self);
  const BackendSettings backends = backend_settings(settings);
  const BackendContext ctx{GST_ELEMENT(self), backends, s.devices};
  // Sizes are checked before any GstVideoInfo, which cannot describe the largest.
  const SizeLimit limit = size_limit(ctx, incaps, outcaps);
  for (GstCaps *caps : {incaps, outcaps})
    if (const std::string problem = size_problem(caps, limit); !problem.empty())
      return refuse_caps(GST_ELEMENT(self), problem, caps);
  // attach-tensor: the output is the tensor those caps describe, made of
  // the frame, which goes through in place.
  CapsPtr attached;
  {
    std::lock_guard lock(s.lock);
    if (s.attach)
      attached.reset(gst_caps_ref(s.attach.get()));
  }
  CapsPtr made(gst_caps_ref(outcaps));
  if (attached) {
    made.reset(attached_tensor_caps(GST_ELEMENT(self), attached.get(), incaps, outcaps,
                                    effective_direction(settings)));
    if (!made)
      return FALSE;
  }
  auto caps = negotiated_output(GST_ELEMENT(self), incaps, made.get(), settings.tensor);
  if (!caps)
    return FALSE;
  // The crop against these frames (the tensor settings were checked above);
  // from here on each setting is checked against them when set.
  StreamShape shape{GST_VIDEO_INFO_WIDTH(&caps->in), GST_VIDEO_INFO_HEIGHT(&caps->in),
                    caps->out.tensor() ? std::optional(*caps->out.tensor()) : std::nullopt};
  if (const std::string problem = crop_problem(settings.crop, shape); !problem.empty()) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid crop for these caps: %s", problem.c_str()),
                      ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
  {
    std::lock_guard lock(s.lock);
    s.shape = shape;
  }
  Stream stream{caps->in, caps->out, nullptr, nullptr, ""};
  Selected selected = make_backend(ctx, stream.in_info, stream.out, incaps, made.get());
  if (!selected.backend)
    return FALSE;
  stream.backend = std::move(selected.backend);
  stream.reason = std::move(selected.reason);
  stream.attach_pool.reset(
      attached ? make_tensor_pool(GST_ELEMENT(self), stream.out.tensor()->size()) : nullptr);
  if (attached && !stream.attach_pool)
    return FALSE;
  GST_INFO_OBJECT(self, "%s -> %s on %s", GST_VIDEO_INFO_NAME(&stream.in_info),
                  stream.out.describe().c_str(), stream.backend->name());
  // NNStreamer lists the innermost dimension first: 3:640:640:1 is NHWC,
  // not PyTorch's (1,3,640,640). Said in both orders.
  if (const TensorSpec *tensor = stream.out.tensor())
    GST_INFO_OBJECT(self, "negotiated %s", layout_text(*tensor).c_str());
  replace_stream(s, std::move(stream));
  gst_base_transform_set_in_place(trans, attached != nullptr);
  return TRUE;
}

gboolean gst_ef_convert_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  // A renegotiation without a caps event (a property that changes the
  // output, a reconfigure from downstream) replaces the backend: the frames
  // it has in flight go first, under the caps they were made for (the base
  // class sets the new source caps after this returns).
  drain_held(self);
  const Settings settings = copy_settings(s);
  return s.refused.set_caps(GST_CAT_DEFAULT, GST_ELEMENT(self), settings.revision, incaps, outcaps,
                            [&] { return configure_caps(self, settings, incaps, outcaps); });
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

// Output buffers: a downstream pool when one is offered, else our own pool
// of fd-backed memory (memfd, or a dma-buf heap where one exists); in a
// device's memory (GL textures, GL buffers), that device's pool.
gboolean gst_ef_convert_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  ConvertState &s = state_of(trans);
  if (!s.stream)  // no caps set yet: nothing of ours to offer
    return GST_BASE_TRANSFORM_CLASS(parent_class)->decide_allocation(trans, query);
  const Stream &stream = *s.stream;
  ObjectPtr<GstAllocator> preferred(stream.backend->output_allocator());
  Device *device = caps ? s.devices.owner_of(memory_of(caps)) : nullptr;
  if (const TensorSpec *tensor = stream.out.tensor()) {
    if (device)
      return device->decide_allocation(GST_ELEMENT(trans), query, caps, nullptr, tensor->size());
    return decide_tensor_pool(GST_ELEMENT(trans), query, caps, tensor->size(), readback_depth(s),
                              preferred.get());
  }
  auto parsed = caps ? parse_video_caps(caps) : Result<VideoCaps>(Error{EINVAL, "no caps"});
  if (!parsed)
    return FALSE;
  if (device)
    return device->decide_allocation(GST_ELEMENT(trans), query, caps, &parsed->info,
                                     parsed->info.size);
  return decide_output_pool(GST_ELEMENT(trans), query, caps, *parsed, readback_depth(s),
                            preferred.get());
}

// `in` converted into `out` by the backend, with the settings copied for
// the frame and its plan; a bad frame goes by the max-errors rule.
GstFlowReturn convert_frame(GstEfConvert *self, GstBuffer *in, GstBuffer *out, Settings &settings,
                            ConvertParams &plan) {
  ConvertState &s = state_of(self);
  GstElement *element = GST_ELEMENT(self);
  if (!s.stream)
    return GST_FLOW_NOT_NEGOTIATED;
  const Stream &stream = *s.stream;
  ConvertBackend &backend = *stream.backend;
  auto layout = locate_planes(in, stream.in_info);
  if (!layout)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid input frame: " + layout.error().message);
  if (auto fds = check_frame_fds(in, *layout); !fds)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Cannot read the input frame: " + fds.error().message);
  if (const std::string interlaced = frame_interlace_problem(stream.in_info, in);
      !interlaced.empty())
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, interlaced);
  settings = copy_settings(s);  // once per frame
  auto params = plan_frame(stream, in, settings);
  if (!params) {
    // Settings are checked when set and at negotiation: what is left is a
    // crop beyond the frame's own crop meta. A setting, not a bad frame.
    GST_ELEMENT_ERROR(element, LIBRARY, SETTINGS, ("%s", params.error().message.c_str()),
                      ("a setting this frame cannot take; not counted by max-errors"));
    return GST_FLOW_ERROR;
  }
  // A frame that cannot be read (unmappable memory, a closed fd) fails here.
  {
    std::lock_guard lock(s.stream_lock);
    s.last_plan = *params;
  }
  const size_t flying = backend.in_flight();
  auto done = backend.convert(in, *layout, out, *params);
  s.held.set_last_in_flight(backend.in_flight() > flying);
  if (!done)
    return refuse_frame(element, s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                        "Conversion failed: " + done.error().message,
                        std::string("backend ") + backend.name());
  s.errors.good_frame();
  s.ignored.check(element, settings, backend);
  s.stats.add(kFrames);
  plan = *params;
  return GST_FLOW_OK;
}

GstFlowReturn gst_ef_convert_transform(GstBaseTransform *trans, GstBuffer *in, GstBuffer *out) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  Settings settings;
  ConvertParams plan;
  if (GstFlowReturn ret = convert_frame(self, in, out, settings, plan); ret != GST_FLOW_OK)
    return ret;
  const ConvertParams *params = &plan;
  if (!describe_output(out, *params))
    GST_LOG_OBJECT(self, "output carries no identity");
  if (const TensorSpec *tensor = s.stream->out.tensor())
    add_tensor_meta(out, *tensor, settings.tensor.id);
  return GST_FLOW_OK;
}

// attach-tensor: the frame goes on as it came (its memory, identity and
// metas) with the tensor made of it attached.
GstFlowReturn gst_ef_convert_transform_ip(GstBaseTransform *trans, GstBuffer *frame) {
  auto *self = GST_EF_CONVERT(trans);
  ConvertState &s = state_of(self);
  const TensorSpec *spec = s.stream ? s.stream->out.tensor() : nullptr;
  GstBuffer *tensor = nullptr;
  if (!spec || !s.stream->attach_pool ||
      gst_buffer_pool_acquire_buffer(s.stream->attach_pool.get(), &tensor, nullptr) !=
          GST_FLOW_OK) {
    GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("No tensor buffer to attach"), (nullptr));
    return GST_FLOW_ERROR;
  }
  BufferPtr owned(tensor);
  Settings settings;
  ConvertParams plan;
  if (GstFlowReturn ret = convert_frame(self, frame, tensor, settings, plan); ret != GST_FLOW_OK)
    return ret;
  // The tensor rides on the frame: its read-back (GL) completes before
  // the frame goes, which the backend holds until then.
  s.held.set_last_in_flight(false);
  ConvertBackend &backend = *s.stream->backend;
  while (backend.in_flight() > 0)
    if (auto done = backend.complete_oldest(); !done)
      return refuse_frame(GST_ELEMENT(self), s.errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
                          "Read-back failed: " + done.error().message,
                          std::string("backend ") + backend.name());
  describe_output(tensor, plan);
  add_tensor_meta(tensor, *spec, settings.tensor.id);
  attach_tensor(frame, tensor, *spec, settings.tensor.id);
  return GST_FLOW_OK;
}

// A setting the backend is made with changed while caps were set: the
// backend is made again for the same caps, before the base class decides
// the output pool (it renegotiates the allocation: set_property asked).
// GstBaseTransform calls set_caps again only when caps change.
GstFlowReturn gst_ef_convert_submit_input_buffer(GstBaseTransform *trans, gboolean discont,
                                                 GstBuffer *input) {
  if (forward_gap_buffer(trans, input))  // no frame (gap_buffers)
    return GST_FLOW_OK;
  ConvertState &s = state_of(trans);
  bool remake;
  {
    std::lock_guard lock(s.lock);
    remake = std::exchange(s.remake, false) && s.stream;
  }
  if (remake) {
    CapsPtr in(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans)));
    CapsPtr out(gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans)));
    GST_INFO_OBJECT(trans, "a setting the backend is made with changed: making it again");
    if (in && out && !gst_ef_convert_set_caps(trans, in.get(), out.get())) {
      gst_buffer_unref(input);
      return GST_FLOW_NOT_NEGOTIATED;
    }
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->submit_input_buffer(trans, discont, input);
}

// Outputs whose read-back is in flight are held (held_outputs).
GstFlowReturn gst_ef_convert_generate_output(GstBaseTransform *trans, GstBuffer **outbuf) {
  ConvertState &s = state_of(trans);
  s.held.start_output();
  const GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS(parent_class)->generate_output(trans, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  return s.held.pass(GST_ELEMENT(trans), backend_of(s), s.errors, readback_depth(s), outbuf);
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
    s.held.drop(backend_of(s));
  else if (guint(GST_EVENT_TYPE(event)) & guint(GST_EVENT_TYPE_SERIALIZED))
    drain_held(GST_EF_CONVERT(trans));
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    if (ConvertBackend *backend = backend_of(s))
      backend->sync_stats();
    s.stats.post(GST_ELEMENT(trans));
  } else if (GST_EVENT_TYPE(event) == GST_EVENT_TAG) {
    GstTagList *tags;
    gst_event_parse_tag(event, &tags);
    GstVideoOrientationMethod method;
    if (gst_video_orientation_from_tag(tags, &method)) {
      std::lock_guard lock(s.lock);
      if (s.settings.tag_direction != method) {
        s.settings.tag_direction = method;
        ++s.settings.revision;
      }
    }
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->sink_event(trans, event);
}

// A value refused before the start: the element does not run on the old
// one in its place (setting_refusals).
gboolean gst_ef_convert_start(GstBaseTransform *trans) {
  return state_of(trans).refusals.start(GST_ELEMENT(trans));
}

gboolean gst_ef_convert_stop(GstBaseTransform *trans) {
  ConvertState &s = state_of(trans);
  s.refusals.stop();
  forget_sayings(GST_ELEMENT(trans));
  s.ignored.forget();
  s.held.drop(backend_of(s));
  if (s.stream && s.stream->attach_pool)
    gst_buffer_pool_set_active(s.stream->attach_pool.get(), FALSE);
  replace_stream(s, std::nullopt);
  s.refused.forget();
  {
    std::lock_guard lock(s.lock);
    s.shape = StreamShape();
    s.remake = false;
  }
  s.errors.reset();
  return TRUE;
}

void gst_ef_convert_set_context(GstElement *element, GstContext *context) {
  state_of(element).devices.each(
      [&](const DeviceType &, Device &device) { device.set_context(element, context); });
  GST_ELEMENT_CLASS(parent_class)->set_context(element, context);
}

// Upstream's latency plus, with a pipelined read-back, the frames an output
// may be held: readback-depth frame durations. Unknown without a frame rate
// (nothing added, logged); outputs that are not plain memory, and backends
// whose entries do not pipeline read-backs, are never held.
gboolean answer_latency(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
  if (!GST_BASE_TRANSFORM_CLASS(parent_class)->query(trans, direction, query))
    return FALSE;
  ConvertState &s = state_of(trans);
  const guint depth = readback_depth(s);
  GstCaps *caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SRC_PAD(trans));
  const bool plain_out = !caps || memory_kind(memory_of(caps)).plain;
  if (caps)
    gst_caps_unref(caps);
  bool reads_back = false;
  gint fps_n = 0, fps_d = 0;
  {
    std::lock_guard lock(s.stream_lock);
    if (const ConvertBackend *backend = backend_of(s)) {
      const BackendEntry *entry = backend_named(backend->name());
      reads_back = entry && entry->pipelines_readbacks;
      fps_n = GST_VIDEO_INFO_FPS_N(&s.stream->in_info);
      fps_d = GST_VIDEO_INFO_FPS_D(&s.stream->in_info);
    }
  }
  if (depth == 0 || !plain_out || !reads_back)
    return TRUE;
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

// A link check (gst_pad_link's caps check: gst-launch-1.0's
// `src ! video/x-raw,format=NV16 ! efconvert`, before the pipeline starts)
// asks with no filter, here or through the element linked before. Answered
// with what efconvert takes alone, gst-launch-1.0 says only "could not link
// ..., efconvert0 can't handle caps": while the pad is inactive (no caps can
// arrive) any video, and on the source pad any tensor, is added, so that the
// line links and negotiation, which asks active pads and gets the caps
// efconvert takes, names what it refused.
void widen_link_check(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
  GstCaps *filter = nullptr, *answer = nullptr;
  gst_query_parse_caps(query, &filter);
  gst_query_parse_caps_result(query, &answer);
  GstPad *pad = direction == GST_PAD_SINK ? GST_BASE_TRANSFORM_SINK_PAD(trans)
                                          : GST_BASE_TRANSFORM_SRC_PAD(trans);
  if (filter || !answer || gst_pad_is_active(pad))
    return;
  GstCaps *wide = gst_caps_merge(
      gst_caps_copy(answer),
      gst_caps_from_string(direction == GST_PAD_SINK ? "video/x-raw(ANY)"
                                                     : "video/x-raw(ANY); other/tensors(ANY)"));
  gst_query_set_caps_result(query, wide);
  gst_caps_unref(wide);
}

// A caps query from upstream found nothing. Where nothing could (formats no
// backend reads, or a downstream that takes nothing efconvert makes) the
// negotiation cannot succeed: an ERROR says why, once a run (gst-launch-1.0
// prints errors at once; a source sends no caps a query refused, so no
// accept-caps would name them). Else it is logged: a source may ask again.
void name_empty_answer(GstEfConvert *self, GstCaps *filter) {
  GstElement *element = GST_ELEMENT(self);
  ConvertState &s = state_of(self);
  {
    std::lock_guard lock(s.lock);
    if (s.attach)  // the frames go through: downstream's caps are upstream's
      return name_refused_input(element, filter, false);
  }
  std::string message = reads_none_of(filter) ? refused_input_message(element, filter) : "";
  if (message.empty()) {
    CapsPtr downstream(gst_pad_peer_query_caps(GST_BASE_TRANSFORM_SRC_PAD(self), nullptr));
    message = refused_output_message(element, downstream.get());
  }
  if (message.empty())
    return name_refused_input(element, filter, false);
  GST_WARNING_OBJECT(self, "%s; caps query %" GST_PTR_FORMAT, message.c_str(), filter);
  if (first_saying(element, message))
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("%s", message.c_str()),
                      ("a caps query found nothing efconvert takes and makes"));
}

gboolean gst_ef_convert_query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *query) {
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
    bool answered = false;
    state_of(trans).devices.each([&](const DeviceType &, Device &device) {
      answered = answered || device.answer_context_query(GST_ELEMENT(trans), query);
    });
    if (answered)
      return TRUE;
  }
  if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && direction == GST_PAD_SRC)
    return answer_latency(trans, direction, query);
  const gboolean answered = query_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class),
                                                direction, query, drm_in());
  if (GST_QUERY_TYPE(query) == GST_QUERY_CAPS)
    widen_link_check(trans, direction, query);
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE(query) == GST_QUERY_CAPS) {
    GstCaps *filter = nullptr, *answer = nullptr;
    gst_query_parse_caps(query, &filter);
    gst_query_parse_caps_result(query, &answer);
    if (filter && answer && gst_caps_is_empty(answer))
      name_empty_answer(GST_EF_CONVERT(trans), filter);
    // Sizes beyond the limit leave the answer empty too: named here, for
    // any format (name_refused_input names formats and fields only).
    refuse_size_in_caps_query(GST_ELEMENT(trans), query, cpu_size_limit());
  }
  return answered;
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

// `field` becomes `value`; whether that changed it.
template <typename T>
bool assign(T &field, T value) {
  const bool changed = !(field == value);
  field = value;
  return changed;
}

// attach-tensor's caps: "" where efconvert makes such tensors, else why not.
std::string attach_problem(GObject *object, const GstCaps *caps) {
  if (!caps)
    return "";
  GstPadTemplate *src =
      gst_element_class_get_pad_template(GST_ELEMENT_CLASS(G_OBJECT_GET_CLASS(object)), "src");
  GstCaps *made = gst_pad_template_get_caps(src);
  const bool tensor = !gst_caps_is_empty(caps) && !gst_caps_is_any(caps) &&
                      gst_structure_has_name(gst_caps_get_structure(caps, 0), "other/tensors");
  const bool makes = tensor && gst_caps_can_intersect(caps, made);
  gst_caps_unref(made);
  if (makes)
    return "";
  gchar *text = gst_caps_to_string(caps);
  std::string why = std::string(text) +
                    (tensor ? ": efconvert makes no such tensor (it makes other/tensors, "
                              "format=static, num_tensors=1, types uint8, int8, float16 or "
                              "float32)"
                            : " are no tensor caps (other/tensors, types=..., dimensions=...)");
  g_free(text);
  return why;
}

// Settings are checked here, against the negotiated stream where there is
// one (settings_check); a value refused keeps the old one, and is an ERROR
// at start or a WARNING while running (setting_refusals).
// What the backend is made with (backend, n-threads, gl-shader) applies
// from the next frame (submit_input_buffer), the pools' depth (readback-depth)
// too: the element renegotiates its allocation.
void gst_ef_convert_set_property(GObject *object, guint id, const GValue *value,
                                 GParamSpec *pspec) {
  auto *self = GST_EF_CONVERT(object);
  ConvertState &s = state_of(self);
  if (!settable_in_state(object, pspec))
    return;
  bool renegotiate = false;
  bool latency = false;
  std::string refused;
  {
    std::lock_guard lock(s.lock);
    Settings &st = s.settings;
    switch (id) {
      case PROP_BACKEND:
        renegotiate = assign(st.backend, g_value_get_enum(value));
        s.remake = s.remake || (renegotiate && has_stream(s));  // none yet: made with it
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
      case PROP_CROP: {
        GstVideoRectangle crop;
        if (!parse_crop(value, crop))
          refused =
              "crop is an array of 4 integers <x, y, width, height>, e.g. "
              "crop=\"<160, 90, 960, 540>\" in gst-launch-1.0";
        else if ((refused = crop_problem(crop, s.shape)).empty())
          st.crop = crop;
        break;
      }
      case PROP_VIDEO_DIRECTION: {
        const auto direction = GstVideoOrientationMethod(g_value_get_enum(value));
        if ((refused = direction_problem(direction)).empty()) {
          st.direction = direction;
          renegotiate = true;  // a quarter turn swaps the output's default size
        }
        break;
      }
      case PROP_CACHE_CAPACITY:
        st.cache_capacity = g_value_get_uint(value);
        {
          std::lock_guard stream_lock(s.stream_lock);
          if (ConvertBackend *backend = backend_of(s))
            backend->set_cache_capacity(st.cache_capacity);
        }
        break;
      case PROP_N_THREADS:
        renegotiate = assign(st.n_threads, g_value_get_uint(value));
        s.remake = s.remake || (renegotiate && has_stream(s));  // none yet: made with it
        break;
      case PROP_MAX_ERRORS:
        s.errors.set_max_errors(g_value_get_int(value));
        break;
      case PROP_READBACK_DEPTH:
        latency = renegotiate = assign(st.readback_depth, g_value_get_uint(value));
        break;
      case PROP_GL_SHADER:
        renegotiate = assign(st.gl_shader, GstEfConvertGlShader(g_value_get_enum(value)));
        s.remake = s.remake || (renegotiate && has_stream(s));  // none yet: made with it
        break;
      case PROP_GPU_TIMING:
        st.gpu_timing = g_value_get_boolean(value);
        break;
      case PROP_KEEP_BORDERS:
        st.keep_borders = g_value_get_boolean(value);
        break;
      case PROP_GL_CONTEXTS:  // GST_PARAM_MUTABLE_READY: read at READY -> PAUSED
        st.gl_contexts = g_value_get_uint(value);
        break;
      case PROP_MEAN:
      case PROP_STD:
      case PROP_QUANT_SCALE:
      case PROP_QUANT_ZERO_POINT: {
        TensorSettings tensor = st.tensor;
        if (id == PROP_MEAN)
          tensor.mean = channel_values_of(value);
        else if (id == PROP_STD)
          tensor.stddev = channel_values_of(value);
        else if (id == PROP_QUANT_SCALE)
          tensor.quant_scale = g_value_get_double(value);
        else
          tensor.zero_point = g_value_get_int(value);
        if ((refused = tensor_problem(tensor, s.shape)).empty())
          st.tensor = tensor;
        break;
      }
      case PROP_CHANNEL_ORDER:
        st.tensor.bgr = g_value_get_enum(value) == GST_EF_CONVERT_CHANNEL_ORDER_BGR;
        break;
      case PROP_TENSOR_ID:
        st.tensor.id = g_quark_from_string(g_value_get_string(value) ? g_value_get_string(value)
                                                                     : kDefaultTensorId);
        break;
      case PROP_ATTACH_TENSOR: {
        const GstCaps *caps = gst_value_get_caps(value);
        if ((refused = attach_problem(object, caps)).empty()) {
          s.attach.reset(caps ? gst_caps_copy(caps) : nullptr);
          renegotiate = true;
        }
        break;
      }
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
        break;
    }
    if (refused.empty())
      ++st.revision;
  }
  if (refused.empty())
    s.refusals.accepted(pspec);
  else
    s.refusals.refuse(GST_ELEMENT(self), pspec, value, refused, setting_takes(pspec->name));
  if (renegotiate)
    gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
  if (latency)  // outputs held longer or shorter: the pipeline asks again
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
}

void gst_ef_convert_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  ConvertState &s = state_of(object);
  if (id == PROP_MAX_ERRORS) {
    g_value_set_int(value, s.errors.max_errors());
    return;
  }
  if (s.stats.get_property(PROP_STATS, id, value))
    return;
  std::lock_guard lock(s.lock);
  std::lock_guard stream_lock(s.stream_lock);
  const Settings &st = s.settings;
  const ConvertParams &plan = s.last_plan;
  const ConvertBackend *backend = backend_of(s);
  switch (id) {
    case PROP_BACKEND:
      g_value_set_enum(value, st.backend);
      break;
    case PROP_BACKEND_IN_USE:
      g_value_set_string(value, backend ? backend->name() : "none");
      break;
    case PROP_BACKEND_REASON: {
      const std::string own = backend ? backend->reason() : std::string();
      g_value_set_string(value, !backend      ? ""
                                : own.empty() ? s.stream->reason.c_str()
                                              : own.c_str());
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
    case PROP_GL_SHADER:
      g_value_set_enum(value, st.gl_shader);
      break;
    case PROP_GPU_TIMING:
      g_value_set_boolean(value, st.gpu_timing);
      break;
    case PROP_KEEP_BORDERS:
      g_value_set_boolean(value, st.keep_borders);
      break;
    case PROP_GL_CONTEXTS:
      g_value_set_uint(value, st.gl_contexts);
      break;
    case PROP_GL_SHADER_IN_USE:
      g_value_set_string(value, backend ? backend->gl_shader() : "none");
      break;
    case PROP_MEAN:
      set_channel_values(value, st.tensor.mean);
      break;
    case PROP_STD:
      set_channel_values(value, st.tensor.stddev);
      break;
    case PROP_QUANT_SCALE:
      g_value_set_double(value, st.tensor.quant_scale);
      break;
    case PROP_QUANT_ZERO_POINT:
      g_value_set_int(value, st.tensor.zero_point);
      break;
    case PROP_CHANNEL_ORDER:
      g_value_set_enum(value, st.tensor.bgr ? GST_EF_CONVERT_CHANNEL_ORDER_BGR
                                            : GST_EF_CONVERT_CHANNEL_ORDER_RGB);
      break;
    case PROP_TENSOR_ID:
      g_value_set_string(value, g_quark_to_string(st.tensor.id));
      break;
    case PROP_ATTACH_TENSOR:
      gst_value_set_caps(value, s.attach.get());
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

GParamSpec *channel_values_spec(const char *name, const char *nick, const char *blurb) {
  return gst_param_spec_array(
      name, nick, blurb,
      g_param_spec_double("value", "value", "value", -G_MAXDOUBLE, G_MAXDOUBLE, 0,
                          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
      rw_flags());
}

// For tensor outputs (other/tensors caps); images ignore them. Checked when
// set (against the negotiated tensor, where there is one) and at
// negotiation, with an error on the bus.
void install_tensor_properties(GObjectClass *object_class) {
  g_object_class_install_property(
      object_class, PROP_MEAN,
      channel_values_spec("mean", "Mean",
                          "Tensor outputs: subtracted from each channel value x (0-255 units) "
                          "before dividing by std: (x - mean) / std. One value for every "
                          "channel, or one per channel in the tensor's channel order (with "
                          "channel-order=bgr, blue first), e.g. "
                          "mean=\"<123.675, 116.28, 103.53>\" in gst-launch-1.0"));
  g_object_class_install_property(
      object_class, PROP_STD,
      channel_values_spec("std", "Standard deviation",
                          "Tensor outputs: each channel value, less mean, is divided by it "
                          "(0-255 units; above 0, else refused on the bus). One value for every "
                          "channel, or one per channel in the tensor's order, e.g. "
                          "std=\"<58.395, 57.12, 57.375>\" in gst-launch-1.0"));
  g_object_class_install_property(
      object_class, PROP_QUANT_SCALE,
      g_param_spec_double(
          "quant-scale", "Quantisation scale",
          "uint8 and int8 tensors: q = clamp(round(((x - mean) / std) / quant-scale) + "
          "quant-zero-point), rounding half to even, clamped to the type; with every default "
          "a uint8 tensor holds the 8-bit values themselves. Must be a finite number above 0: "
          "the range below admits every number so that another value reaches efconvert, which "
          "refuses it with an error on the bus (a warning while playing, the old value kept)",
          -G_MAXDOUBLE, G_MAXDOUBLE, 1.0, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_QUANT_ZERO_POINT,
      g_param_spec_int("quant-zero-point", "Quantisation zero point",
                       "uint8 and int8 tensors: added after scaling (see quant-scale); must lie "
                       "in the tensor's type (int8 -128..127, uint8 0..255): another value is "
                       "refused with an error on the bus (a warning while playing, the old value "
                       "kept)",
                       G_MININT, G_MAXINT, 0, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_CHANNEL_ORDER,
      g_param_spec_enum("channel-order", "Channel order",
                        "Order of a tensor's three channels: tensor caps carry no colour order "
                        "(NNStreamer's are order-free), so it is set here. Images do not use it: "
                        "their format (RGB, BGR, RGBP, BGRP, ...) is their order",
                        GST_TYPE_EF_CONVERT_CHANNEL_ORDER, GST_EF_CONVERT_CHANNEL_ORDER_RGB,
                        rw_flags()));
  g_object_class_install_property(
      object_class, PROP_ATTACH_TENSOR,
      g_param_spec_boxed(
          "attach-tensor", "Attach tensor",
          "Tensor caps (other/tensors, types=..., dimensions=...: what downstream would ask "
          "for; no dimensions: the input's turned size). When set, frames go through unchanged "
          "(their memory, identity and metas; the source pad's caps are the sink pad's) with "
          "the tensor made of each attached as a GstEfTensorMeta (and a GstTensorMeta with "
          "GStreamer 1.26+); the tensor's buffer carries the GstEfTransformMeta that maps "
          "tensor pixels to the frame's. NULL (the default): the tensor or image is the output",
          GST_TYPE_CAPS,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_TENSOR_ID,
      g_param_spec_string("tensor-id", "Tensor id",
                          "The id (a GQuark's string) of the tensor in the GstTensorMeta it "
                          "carries (GStreamer 1.26 and later)",
                          kDefaultTensorId, rw_flags()));
}

// A blurb made once, for the class's life (G_PARAM_STATIC_STRINGS).
const char *kept(const std::string &text) {
  return g_intern_string(text.c_str());
}

void install_properties(GObjectClass *object_class) {
  g_object_class_install_property(
      object_class, PROP_BACKEND,
      g_param_spec_enum(
          "backend", "Backend",
          kept("Where conversions run; set while playing, from the next frame on (backend-in-use "
               "says which runs). auto decides per caps among the backends that make the "
               "conversion, from what a frame costs: " +
               auto_blurb() +
               "; else the faster of those timed on the first frame, which leaves as its "
               "conversion (backend-reason says why)"),
          backend_enum_type(), kAutoBackend, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_BACKEND_IN_USE,
      g_param_spec_string("backend-in-use", "Backend in use",
                          kept("The backend chosen for the current caps: " + backend_names() +
                               ", or none while no caps are set"),
                          "none", ro_flags()));
  g_object_class_install_property(
      object_class, PROP_BACKEND_REASON,
      g_param_spec_string("backend-reason", "Backend reason",
                          "Why backend-in-use runs: asked for, or what auto found (while auto "
                          "times the backends it cannot tell apart, it begins with \"trial:\")",
                          "", ro_flags()));
  g_object_class_install_property(
      object_class, PROP_METHOD,
      g_param_spec_enum("method", "Method",
                        "Scaling filter, by videoscale's nicks and numbers: nearest-neighbour "
                        "(also taken as nearest), bilinear",
                        GST_TYPE_EF_CONVERT_METHOD, GST_EF_CONVERT_METHOD_BILINEAR, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_LETTERBOX,
      g_param_spec_boolean("letterbox", "Letterbox",
                           "Keep the picture's proportions in pixels and fill the borders with "
                           "fill-color; when false, stretch to the output size. (videoscale's "
                           "add-borders keeps the display aspect ratio, pixel-aspect-ratio "
                           "included: a model's input has square pixels)",
                           TRUE, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_FILL_COLOR,
      g_param_spec_uint("fill-color", "Fill color",
                        "Border colour, big-endian ARGB (0xAARRGGBB, as videotestsrc's "
                        "background-color)",
                        0, G_MAXUINT32, 0xff000000, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_CROP,
      gst_param_spec_array(
          "crop", "Crop",
          "Source rectangle <x, y, width, height> inside the frame (after any "
          "GstVideoCropMeta), e.g. crop=\"<160, 90, 960, 540>\" in gst-launch-1.0; <0, 0, 0, 0> "
          "for the whole frame. A rectangle outside the negotiated frame is refused when set, "
          "and at negotiation",
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
  ConvertStats::install_property(object_class, PROP_STATS);
  install_max_errors_property(object_class, PROP_MAX_ERRORS);
  g_object_class_install_property(
      object_class, PROP_N_THREADS,
      g_param_spec_uint("n-threads", "Threads",
                        "Threads that convert a frame on the CPU backend, the streaming thread "
                        "included (0 = one per online CPU); the helpers are one set every "
                        "efconvert of the process shares, as many as the online CPUs. Set "
                        "while playing, it applies from the next frame",
                        0, 1024, 0, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_READBACK_DEPTH,
      g_param_spec_uint(
          "readback-depth", "Read-back depth",
          "Frames the GL backend reads back from the GPU while it renders later ones, for "
          "plain-memory outputs it cannot render in place: 0 waits for each frame's read-back "
          "in its own chain; N holds an output until N more frames were rendered (or a "
          "serialized event, EOS included, drains them), adding N frame durations of latency "
          "(reported in the LATENCY query) so the streaming thread never waits for the GPU. Set "
          "while playing, it applies from the next frame",
          0, kMaxReadbackDepth, 0, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_GL_SHADER,
      g_param_spec_enum("gl-shader", "GL shader",
                        "How the GL backend runs its pass. On GPUs whose graphics units are a "
                        "small part of the chip (compute GPUs such as the H100/H200) fragments "
                        "cost many times what the same compute shader does; a software "
                        "rasterizer is the other way round. Tensors are always computed: GL makes "
                        "none with fragment (auto then takes the CPU). Set while playing, it "
                        "applies from the next frame (gl-shader-in-use says which runs)",
                        GST_TYPE_EF_CONVERT_GL_SHADER, GST_EF_CONVERT_GL_SHADER_AUTO, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_GPU_TIMING,
      g_param_spec_boolean(
          "gpu-timing", "GPU timing",
          "GL timer queries around the GL backend's pass and read-back, for gpu-time-ns and "
          "readback-gpu-time-ns; they cost GL-thread time where many GL contexts share the GPU "
          "(EF_GL_GPU_TIMER=off turns them off whatever this says). Applied when caps are next "
          "set",
          FALSE, rw_flags()));
  g_object_class_install_property(
      object_class, PROP_GL_CONTEXTS,
      g_param_spec_uint(
          "gl-contexts", "GL contexts",
          "How many GL contexts (each with a GL thread) the efconverts of one GL display share "
          "(a pipeline has one display unless the application shares one). 0: efconvert runs "
          "on the context it finds when caps are set, its upstream's on GL memory (N decoders "
          "that each make one: up to N contexts); the CUDA backend writing GL memory takes one "
          "of its own (every frame's CUDA-GL interop waits on its GL thread). K >= 1: it makes or "
          "takes its context at "
          "READY -> PAUSED from a pool of K contexts of the display, taken in turn by the "
          "efconverts that start, and upstream GL elements that ask downstream for a context "
          "(decoders such as nvh264dec) run on it too. Each GL thread costs CPU time, and one "
          "thread for every stream bounds the frame rate: with many streams a few do best (16 "
          "decoded 1080p streams on an H200: 4 gave 13-19 % more frames than 0 at half the "
          "CPU time). Ignored with backend=cpu; EF_GL_EARLY, where set, decides instead (for "
          "measuring)",
          0, kMaxGlContexts, 0,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_KEEP_BORDERS,
      g_param_spec_boolean(
          "keep-borders", "Keep borders",
          "Leave the letterbox rows above and below the picture as they are in an output "
          "memory the CPU backend wrote the same rows into last (GstEfFdAllocator memory, as "
          "efconvert's own pools have: the "
          "memory's tag, which any map for writing clears, says they are still there; "
          "borders-kept counts the frames). A 16:9 frame into a 640x640 tensor is 44 % border. "
          "Set false where something changes output buffers without mapping them (through their "
          "fd, in another process). Applies from the next frame",
          TRUE, rw_flags()));
  install_tensor_properties(object_class);
  g_object_class_install_property(
      object_class, PROP_GL_SHADER_IN_USE,
      g_param_spec_string("gl-shader-in-use", "GL shader in use",
                          "The GL backend's pass for the current caps: compute, fragment, or "
                          "none where the GL backend does not run",
                          "none", ro_flags()));
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
      "frames, or tensors (NNStreamer's other/tensors: float32, float16, int8, uint8, NHWC or "
      "NCHW, normalised and quantised; from the GL backend also as GL buffers that stay on the "
      "GPU, memory:GLBuffer). Tensor dimensions are NNStreamer's, innermost first: PyTorch's "
      "NCHW (1,3,H,W) is dimensions=W:H:3:1, NHWC (1,H,W,3) is dimensions=3:W:H:1. Each "
      "output carries a GstEfTransformMeta mapping it back to the input.",
      "ef developers");
  add_pad_templates(element_class, sink_template_caps().c_str(), src_template_caps().c_str());

  trans_class->transform_caps = gst_ef_convert_transform_caps;
  trans_class->fixate_caps = gst_ef_convert_fixate_caps;
  trans_class->accept_caps = gst_ef_convert_accept_caps;
  trans_class->set_caps = gst_ef_convert_set_caps;
  trans_class->propose_allocation = gst_ef_convert_propose_allocation;
  trans_class->decide_allocation = gst_ef_convert_decide_allocation;
  trans_class->transform = gst_ef_convert_transform;
  trans_class->transform_ip = gst_ef_convert_transform_ip;
  trans_class->submit_input_buffer = gst_ef_convert_submit_input_buffer;
  trans_class->generate_output = gst_ef_convert_generate_output;
  trans_class->transform_meta = gst_ef_convert_transform_meta;
  trans_class->sink_event = gst_ef_convert_sink_event;
  trans_class->start = gst_ef_convert_start;
  trans_class->stop = gst_ef_convert_stop;
  trans_class->query = gst_ef_convert_query;
  element_class->set_context = gst_ef_convert_set_context;
  element_class->change_state = gst_ef_convert_change_state;
}

static void gst_ef_convert_init(GstEfConvert *self) {
  // attach-tensor's pass-through frames: in this pad's template, not in the
  // class's (convert_caps.hpp, src_pad_caps).
  static GstPadTemplate *const src_pad_template = GST_PAD_TEMPLATE(gst_object_ref_sink(
      gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS,
                           CapsPtr(gst_caps_from_string(src_pad_caps().c_str())).get())));
  g_object_set(GST_BASE_TRANSFORM_SRC_PAD(self), "template", src_pad_template, nullptr);
  self->state = new ConvertState();
  ConvertState &s = *self->state;
  s.settings.tensor.id = g_quark_from_static_string(kDefaultTensorId);
  s.stats.derive([&s](ConvertStats::Values &v) { derive_counters(s, v); });
}
