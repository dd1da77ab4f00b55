// SPDX-License-Identifier: LGPL-2.1-or-later
// efvkbridge: frames into and out of an application's Vulkan, with imports
// keyed by buffer identity and slot-release back-pressure. The direction
// follows the caps: VkImage memory in (memory:EfVkImage) means out of
// Vulkan, anything else means into it. See docs/ARCHITECTURE.md, "efvkbridge",
// and docs/VKBRIDGE.md for application authors.
#include "gstefvkbridge.h"

#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <cstdlib>
#include <cstring>

#include "bridge_caps.hpp"
#include "bridge_state.hpp"
#include "common/cache_capacity.hpp"
#include "common/caps_filter.hpp"
#include "common/dma_drm_caps.hpp"
#include "common/gap_buffers.hpp"
#include "common/pad_templates.hpp"
#include "common/property_checks.hpp"
#include "common/said_once.hpp"
#include "common/size_limits.hpp"
#include "device_context.hpp"
#include "common/gst_ptr.hpp"

GST_DEBUG_CATEGORY(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

using namespace ef;
using namespace ef::gst;

namespace {

constexpr const char *kSinkCaps = GST_VIDEO_CAPS_MAKE_WITH_FEATURES(
    GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE,
    EF_VK_FORMATS) ";" EF_DMABUF_CAPS(EF_VK_FORMATS) ";" GST_VIDEO_CAPS_MAKE(EF_VK_FORMATS);
// Into Vulkan the frame goes on as it came (its dma-bufs in their own form);
// out of Vulkan it is written into memfds, made as DMA_DRM.
constexpr const char *kSrcCaps =
    EF_DMABUF_CAPS_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_DMABUF
                                 ", " GST_CAPS_FEATURE_META_EF_VK_IMAGE,
                                 EF_VK_FORMATS) ";"
        GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_META_EF_VK_IMAGE,
                                          EF_VK_FORMATS) ";" EF_DMABUF_OUT_CAPS(EF_VK_FORMATS) ";"
            GST_VIDEO_CAPS_MAKE(EF_VK_FORMATS);

constexpr guint PROP_DEVICE_INDEX = 1;
constexpr guint PROP_DEVICE_UUID = 2;
constexpr guint PROP_RELEASE_TIMEOUT = 3;
constexpr guint PROP_CACHE_CAPACITY = 4;
constexpr guint PROP_DEVICE_NAME = 5;
constexpr guint PROP_IMPORT_PATH = 6;
constexpr guint PROP_MAX_HELD = 7;
constexpr guint PROP_STATS = 8;  // the counters, one structure
constexpr guint PROP_MAX_ERRORS = PROP_STATS + 1;

}  // namespace

struct _GstEfVkBridge {
  GstBaseTransform parent;
  BridgeState *state;
};

#define gst_ef_vk_bridge_parent_class parent_class
G_DEFINE_TYPE_WITH_CODE(GstEfVkBridge, gst_ef_vk_bridge, GST_TYPE_BASE_TRANSFORM,
                        GST_DEBUG_CATEGORY_INIT(gst_ef_vk_bridge_debug, "efvkbridge", 0,
                                                "ef Vulkan bridge"))
GST_ELEMENT_REGISTER_DEFINE(efvkbridge, "efvkbridge", GST_RANK_NONE, GST_TYPE_EF_VK_BRIDGE)

namespace {

BridgeState &state_of(gpointer self) {
  return *GST_EF_VK_BRIDGE(self)->state;
}

// The counters the caches, the bad-frame rule and the device keep themselves.
void derive_counters(const BridgeState &s, BridgeStats::Values &v) {
  ImportCacheStats c = s.imports.stats();
  v[kHits] = c.hits;
  v[kMisses] = c.misses;
  v[kEvictions] = c.evictions;
  v[kRefusals] = c.refusals + s.targets.stats().refusals;
  v[kDropped] = s.errors.dropped();
  if (auto device = s.vk.device())
    v[kValidationMessages] = device->validation_messages();
}

// The CPU's limit (staging copies), and the device's once it is known.
SizeLimit bridge_size_limit(BridgeState &s) {
  auto device = s.vk.device();
  return device ? tighter(vk_size_limit(*device), cpu_size_limit()) : cpu_size_limit();
}

GstCaps *gst_ef_vk_bridge_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                         GstCaps *caps, GstCaps *filter) {
  GstCaps *result = bridge_transform_caps(caps, direction);
  return apply_caps_filter(narrow_for_query(result, filter, bridge_size_limit(state_of(trans))),
                           filter);
}

// A dma-buf layout the bridge cannot import is named on the bus, not only
// refused as "not-negotiated".
gboolean gst_ef_vk_bridge_accept_caps(GstBaseTransform *trans, GstPadDirection direction,
                                      GstCaps *caps) {
  return accept_caps_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, caps,
                                   drm_linear());
}

// --- The device -------------------------------------------------------------

vk::DeviceChoice device_choice(BridgeState &s) {
  std::lock_guard l(s.lock);
  return {s.settings.device_index, s.settings.device_uuid, validation_requested()};
}

gboolean gst_ef_vk_bridge_query(GstBaseTransform *trans, GstPadDirection direction,
                                GstQuery *query) {
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT && state_of(trans).vk.handle_query(query))
    return TRUE;
  const gboolean answered = query_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class),
                                                direction, query, drm_linear());
  if (direction == GST_PAD_SINK)
    refuse_size_in_caps_query(GST_ELEMENT(trans), query, bridge_size_limit(state_of(trans)));
  return answered;
}

// --- Caps and allocation ------------------------------------------------------

void warn_held_frame(GstEfVkBridge *self, GstBuffer *buffer, uint64_t number) {
  const std::string frame = describe_frame(buffer, number);
  BridgeState &s = state_of(self);
  s.stats.add(kGateTimeouts);
  if (s.stats.get(kGateTimeouts) > kTimeoutWarnings) {
    GST_WARNING_OBJECT(self, "released %s after release-timeout", frame.c_str());
    return;
  }
  GST_ELEMENT_WARNING(self, RESOURCE, BUSY,
                      ("The application did not release %s within release-timeout; releasing "
                       "it to its producer now",
                       frame.c_str()),
                      ("arm the frame's GstEfVkImageMeta gate once GPU work on it has retired"));
}

// set_caps's checks and the stream they make; a refusal is posted.
static gboolean configure_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_VK_BRIDGE(trans);
  BridgeState &s = state_of(self);
  const vk::DeviceChoice choice = device_choice(s);
  s.device = s.vk.ensure(GST_ELEMENT(self), choice);
  if (!s.device)
    return FALSE;
  // A device shared through the ef.vulkan.device context wins over the
  // properties: say so where they named another.
  if (choice.uuid && *choice.uuid != s.device->uuid())
    GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                        ("device-uuid %s is not the device in use: the ef.vulkan.device context "
                         "shares %s (device-uuid %s)",
                         vk::device_uuid_text(*choice.uuid).c_str(), s.device->name().c_str(),
                         vk::device_uuid_text(s.device->uuid()).c_str()),
                        (nullptr));
  // Sizes are checked before GstVideoInfo, which cannot describe the largest.
  const SizeLimit limit = bridge_size_limit(s);
  if (const std::string problem = size_problem(incaps, limit); !problem.empty())
    return refuse_caps(GST_ELEMENT(self), problem, incaps);
  auto caps = negotiated_caps(GST_ELEMENT(self), incaps, outcaps, &drm_linear(), &drm_linear());
  if (!caps)
    return FALSE;
  s.in_info = caps->in.info;
  s.out_info = caps->out.info;
  s.format = vk::format_layout(GST_VIDEO_INFO_FORMAT(&s.in_info));
  if (!s.format) {
    GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                      ("Unsupported format %s", GST_VIDEO_INFO_NAME(&s.in_info)), (nullptr));
    return FALSE;
  }
  s.direction = has_feature(gst_caps_get_features(incaps, 0), GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE)
                    ? Direction::OutOfVulkan
                    : Direction::IntoVulkan;
  // A new size or stride must re-import; frames held under the old caps go.
  if (s.held)
    s.held->release_all();
  s.imports.clear();
  s.targets.clear();
  s.staging.reset();
  s.staging_buffer.reset();
  s.importer.switch_on();
  GST_INFO_OBJECT(self, "%s: %" GST_PTR_FORMAT,
                  s.direction == Direction::IntoVulkan ? "into Vulkan" : "out of Vulkan", incaps);
  return TRUE;
}

gboolean gst_ef_vk_bridge_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  return state_of(trans).refused.set_caps(GST_CAT_DEFAULT, GST_ELEMENT(trans), 0, incaps, outcaps,
                                          [&] { return configure_caps(trans, incaps, outcaps); });
}

// Into Vulkan: offer upstream a pool of memfds, which import without a copy,
// and GstVideoMeta, so padded frames arrive as they are.
gboolean gst_ef_vk_bridge_propose_allocation(GstBaseTransform *trans, GstQuery *decide,
                                             GstQuery *query) {
  gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
  GstCaps *caps = nullptr;
  gboolean need_pool = FALSE;
  gst_query_parse_allocation(query, &caps, &need_pool);
  if (!need_pool || !caps ||
      has_feature(gst_caps_get_features(caps, 0), GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE))
    return TRUE;
  auto parsed = parse_video_caps(caps);
  if (!parsed)
    return TRUE;
  (void)decide;
  CapsPtr layout(pool_caps(caps, *parsed));
  if (GstBufferPool *pool = fd_pool(layout.get(), parsed->info.size, 2, 0)) {
    GstStructure *config = gst_buffer_pool_get_config(pool);
    guint size = 0;
    gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
    gst_structure_free(config);
    gst_query_add_allocation_pool(query, pool, size, 2, 0);
    gst_object_unref(pool);
    // Upstream pools take the allocator from here when they configure
    // themselves (GstBaseSrc does): name it too, or they fall back to malloc.
    ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
    gst_query_add_allocation_param(query, allocator.get(), nullptr);
  }
  GST_DEBUG_OBJECT(trans, "proposed a memfd pool: %u pools",
                   gst_query_get_n_allocation_pools(query));
  return TRUE;
}

// Out of Vulkan: downstream's pool when it offers one, else memfds of our own.
gboolean gst_ef_vk_bridge_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  BridgeState &s = state_of(trans);
  if (s.direction != Direction::OutOfVulkan)
    return GST_BASE_TRANSFORM_CLASS(parent_class)->decide_allocation(trans, query);
  GstCaps *caps = nullptr;
  gst_query_parse_allocation(query, &caps, nullptr);
  auto parsed = caps ? parse_video_caps(caps) : Result<VideoCaps>(Error{EINVAL, "no caps"});
  if (!parsed)
    return FALSE;
  if (gst_query_get_n_allocation_pools(query) > 0) {
    GstBufferPool *pool = nullptr;
    guint size = 0, min = 0, max = 0;
    gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
    if (pool) {
      gst_object_unref(pool);
      return GST_BASE_TRANSFORM_CLASS(parent_class)->decide_allocation(trans, query);
    }
  }
  CapsPtr layout(pool_caps(caps, *parsed));
  GstBufferPool *pool = fd_pool(layout.get(), parsed->info.size, 2, 0);
  if (!pool) {
    GST_ELEMENT_ERROR(trans, RESOURCE, SETTINGS, ("Cannot configure the output pool"), (nullptr));
    return FALSE;
  }
  GstStructure *config = gst_buffer_pool_get_config(pool);
  guint size = 0;
  gst_buffer_pool_config_get_params(config, nullptr, &size, nullptr, nullptr);
  gst_structure_free(config);
  if (gst_query_get_n_allocation_pools(query) > 0)
    gst_query_set_nth_allocation_pool(query, 0, pool, size, 2, 0);
  else
    gst_query_add_allocation_pool(query, pool, size, 2, 0);
  gst_object_unref(pool);
  // Not the parent's decide_allocation: it would reconfigure the pool with
  // the query's allocator (none: malloc) over our memfds.
  return TRUE;
}

// --- Frames -----------------------------------------------------------------

GstFlowReturn gst_ef_vk_bridge_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *in,
                                                     GstBuffer **out) {
  BridgeState &s = state_of(trans);
  s.copy_settings();
  s.stats.add(kFrames);
  if (s.direction == Direction::OutOfVulkan)
    return GST_BASE_TRANSFORM_CLASS(parent_class)->prepare_output_buffer(trans, in, out);
  GstFlowReturn ret = bridge_into_vulkan(GST_ELEMENT(trans), s, in, out);
  if (ret != GST_FLOW_OK && *out && *out != in) {
    gst_buffer_unref(*out);
    *out = nullptr;
  }
  return ret;
}

GstFlowReturn gst_ef_vk_bridge_transform(GstBaseTransform *trans, GstBuffer *in, GstBuffer *out) {
  BridgeState &s = state_of(trans);
  GstFlowReturn ret = GST_FLOW_OK;  // into Vulkan: the output is the input frame itself
  if (s.direction == Direction::OutOfVulkan)
    ret = bridge_out_of_vulkan(GST_ELEMENT(trans), s, in, out);
  if (ret == GST_FLOW_OK)
    s.errors.good_frame();
  return ret;
}

gboolean gst_ef_vk_bridge_start(GstBaseTransform *trans) {
  auto *self = GST_EF_VK_BRIDGE(trans);
  BridgeState &s = state_of(self);
  s.held = std::make_unique<ReleaseQueue>(
      [self](GstBuffer *buffer, uint64_t number) { warn_held_frame(self, buffer, number); });
  s.importer.declines().reset();
  s.frame_number = 0;
  s.errors.reset();
  return TRUE;
}

gboolean gst_ef_vk_bridge_stop(GstBaseTransform *trans) {
  BridgeState &s = state_of(trans);
  forget_sayings(GST_ELEMENT(trans));
  s.held.reset();  // releases every held frame
  s.imports.clear();
  s.targets.clear();
  s.staging.reset();
  s.staging_buffer.reset();
  s.direction = Direction::None;
  s.format.reset();
  s.importer.switch_on();
  s.device.reset();
  s.vk.reset(GST_ELEMENT(trans));
  s.refused.forget();
  return TRUE;
}

// A GAP buffer is no frame to bring into Vulkan (gap_buffers).
GstFlowReturn gst_ef_vk_bridge_submit_input_buffer(GstBaseTransform *trans, gboolean discont,
                                                   GstBuffer *input) {
  if (forward_gap_buffer(trans, input))
    return GST_FLOW_OK;
  return GST_BASE_TRANSFORM_CLASS(parent_class)->submit_input_buffer(trans, discont, input);
}

gboolean gst_ef_vk_bridge_sink_event(GstBaseTransform *trans, GstEvent *event) {
  BridgeState &s = state_of(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    s.stats.post(GST_ELEMENT(trans));
  } else if ((GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_START ||
              GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) &&
             s.held) {
    s.held->release_all();  // at FLUSH_START also frees a streaming thread waiting for room
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->sink_event(trans, event);
}

// --- Properties -------------------------------------------------------------

// One setting, under the state's lock: "" or why the value is refused.
std::string set_setting(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  BridgeState &s = state_of(object);
  std::lock_guard l(s.lock);
  switch (id) {
    case PROP_DEVICE_INDEX:
      s.settings.device_index = g_value_get_int(value);
      break;
    case PROP_DEVICE_UUID: {
      const char *text = g_value_get_string(value);
      auto uuid = parse_device_uuid(text);
      if (text && *text && !uuid)
        return std::string("\"") + text +
               "\" is no device UUID: 32 hex digits, dashes between them allowed (as vulkaninfo "
               "prints deviceUUID)";
      s.settings.device_uuid = uuid;
      break;
    }
    case PROP_RELEASE_TIMEOUT:
      s.settings.release_timeout_ms = g_value_get_uint(value);
      break;
    case PROP_MAX_HELD:
      s.settings.max_held = g_value_get_uint(value);
      break;
    case PROP_CACHE_CAPACITY:
      s.settings.cache_capacity = g_value_get_uint(value);
      s.imports.set_capacity(s.settings.cache_capacity);
      s.targets.set_capacity(s.settings.cache_capacity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
  return "";
}

// The device is opened at start: device-index and device-uuid set later are
// refused (settable_in_state), and so is a device-uuid that is no UUID.
void gst_ef_vk_bridge_set_property(GObject *object, guint id, const GValue *value,
                                   GParamSpec *pspec) {
  if (!settable_in_state(object, pspec))
    return;
  if (id == PROP_MAX_ERRORS) {
    state_of(object).errors.set_max_errors(g_value_get_int(value));
    return;
  }
  if (const std::string refused = set_setting(object, id, value, pspec); !refused.empty())
    refuse_value(object, pspec, refused);
}

void gst_ef_vk_bridge_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  BridgeState &s = state_of(object);
  if (s.stats.get_property(PROP_STATS, id, value))
    return;
  if (id == PROP_MAX_ERRORS) {
    g_value_set_int(value, s.errors.max_errors());
    return;
  }
  const auto device = s.vk.device();
  std::lock_guard l(s.lock);
  switch (id) {
    case PROP_DEVICE_INDEX:
      g_value_set_int(value, s.settings.device_index);
      break;
    case PROP_DEVICE_UUID:
      g_value_set_string(value, device ? vk::device_uuid_text(device->uuid()).c_str()
                                : s.settings.device_uuid
                                    ? vk::device_uuid_text(*s.settings.device_uuid).c_str()
                                    : "");
      break;
    case PROP_RELEASE_TIMEOUT:
      g_value_set_uint(value, s.settings.release_timeout_ms);
      break;
    case PROP_MAX_HELD:
      g_value_set_uint(value, s.settings.max_held);
      break;
    case PROP_CACHE_CAPACITY:
      g_value_set_uint(value, s.settings.cache_capacity);
      break;
    case PROP_DEVICE_NAME:
      g_value_set_string(value, device ? device->name().c_str() : "");
      break;
    case PROP_IMPORT_PATH:
      g_value_set_string(value, s.last_path.c_str());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
      break;
  }
}

// Pad deactivation waits for the streaming thread: one waiting for room
// among the held frames must not keep it until release-timeout.
GstStateChangeReturn gst_ef_vk_bridge_change_state(GstElement *element, GstStateChange transition) {
  BridgeState &s = state_of(element);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY && s.held)
    s.held->release_all();
  return GST_ELEMENT_CLASS(parent_class)->change_state(element, transition);
}

void gst_ef_vk_bridge_finalize(GObject *object) {
  delete GST_EF_VK_BRIDGE(object)->state;
  G_OBJECT_CLASS(parent_class)->finalize(object);
}

}  // namespace

static void gst_ef_vk_bridge_class_init(GstEfVkBridgeClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  object_class->set_property = gst_ef_vk_bridge_set_property;
  object_class->get_property = gst_ef_vk_bridge_get_property;
  object_class->finalize = gst_ef_vk_bridge_finalize;

  const auto rw = GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  const auto ro = GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_property(
      object_class, PROP_DEVICE_INDEX,
      g_param_spec_int("device-index", "Device index",
                       "Vulkan physical device to open when no application device is shared "
                       "through the ef.vulkan.device context (-1: the first usable one)",
                       -1, G_MAXINT, -1, GParamFlags(rw | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_DEVICE_UUID,
      g_param_spec_string("device-uuid", "Device UUID",
                          "32 hex digits of VkPhysicalDeviceIDProperties::deviceUUID (dashes "
                          "between them allowed, as vulkaninfo prints it): the device to open "
                          "(overrides device-index); reads back the device in use. One that is "
                          "no UUID is refused when set; one no device has is an error at start "
                          "naming the devices present",
                          "", GParamFlags(rw | GST_PARAM_MUTABLE_READY)));
  g_object_class_install_property(
      object_class, PROP_RELEASE_TIMEOUT,
      g_param_spec_uint("release-timeout", "Release timeout",
                        "Milliseconds an imported frame is held for the application to arm its "
                        "slot-release gate; then a warning names the frame and it is released",
                        0, G_MAXUINT, 1000, GParamFlags(rw | GST_PARAM_MUTABLE_PLAYING)));
  g_object_class_install_property(
      object_class, PROP_MAX_HELD,
      g_param_spec_uint("max-held", "Max held",
                        "Imported input frames held at most for their slot-release gates; at "
                        "the bound the streaming thread waits until the oldest is released or "
                        "times out (back-pressure on producers that make a new memory per "
                        "frame). 0: no bound (a producer's pool bounds them)",
                        0, G_MAXUINT, kDefaultMaxHeld,
                        GParamFlags(rw | GST_PARAM_MUTABLE_PLAYING)));
  install_cache_capacity_property(
      object_class, PROP_CACHE_CAPACITY,
      "Imports, per direction (input frames as VkImages, output buffers as VkBuffers)");
  g_object_class_install_property(
      object_class, PROP_DEVICE_NAME,
      g_param_spec_string("device-name", "Device name", "The Vulkan device in use", "", ro));
  g_object_class_install_property(
      object_class, PROP_IMPORT_PATH,
      g_param_spec_string("import-path", "Import path",
                          "How the last frame crossed: dma-buf, host-pointer (imported without a "
                          "copy), copy (CPU copy through staging), gpu-copy (out of Vulkan into "
                          "an imported buffer), none",
                          "none", ro));
  BridgeStats::install_property(object_class, PROP_STATS);
  install_max_errors_property(object_class, PROP_MAX_ERRORS);

  gst_element_class_set_static_metadata(
      element_class, "ef Vulkan bridge", "Filter/Video",
      "Frames into an application's Vulkan (dma-buf or host-pointer imports cached by buffer "
      "identity, a GstEfVkImageMeta with a slot-release gate on each) and out of it "
      "(GstEfVkImageMemory copied by the GPU into fd-backed frames, gates armed when the copy "
      "retired)",
      "ef developers");
  add_pad_templates(element_class, kSinkCaps, kSrcCaps);
  element_class->change_state = gst_ef_vk_bridge_change_state;

  trans_class->transform_caps = gst_ef_vk_bridge_transform_caps;
  trans_class->accept_caps = gst_ef_vk_bridge_accept_caps;
  trans_class->set_caps = gst_ef_vk_bridge_set_caps;
  trans_class->propose_allocation = gst_ef_vk_bridge_propose_allocation;
  trans_class->decide_allocation = gst_ef_vk_bridge_decide_allocation;
  trans_class->prepare_output_buffer = gst_ef_vk_bridge_prepare_output_buffer;
  trans_class->submit_input_buffer = gst_ef_vk_bridge_submit_input_buffer;
  trans_class->transform = gst_ef_vk_bridge_transform;
  trans_class->query = gst_ef_vk_bridge_query;
  trans_class->start = gst_ef_vk_bridge_start;
  trans_class->stop = gst_ef_vk_bridge_stop;
  trans_class->sink_event = gst_ef_vk_bridge_sink_event;
  trans_class->passthrough_on_same_caps = FALSE;
}

static void gst_ef_vk_bridge_init(GstEfVkBridge *self) {
  self->state = new BridgeState();
  BridgeState &s = *self->state;
  s.stats.derive([&s](BridgeStats::Values &v) { derive_counters(s, v); });
}
