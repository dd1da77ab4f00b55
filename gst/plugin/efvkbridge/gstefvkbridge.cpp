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

#include "bridge_state.hpp"
#include "common/caps_filter.hpp"
#include "common/dma_drm_caps.hpp"
#include "common/size_limits.hpp"
#include "device_context.hpp"
#include "gst_ptr.hpp"

GST_DEBUG_CATEGORY(gst_ef_vk_bridge_debug);
#define GST_CAT_DEFAULT gst_ef_vk_bridge_debug

using namespace ef;
using namespace ef::gst;

namespace {

#define EF_VK_FORMATS "{ RGBA, BGRA, RGBx, BGRx, GRAY8, NV12 }"

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

// Each plane is imported as a LINEAR image (no VK_EXT_image_drm_format_modifier
// path), and memfds out are LINEAR.
const DrmSupport &drm_linear() {
  static const DrmSupport support(EF_VK_FORMATS);
  return support;
}

constexpr guint PROP_DEVICE_INDEX = 1;
constexpr guint PROP_DEVICE_UUID = 2;
constexpr guint PROP_RELEASE_TIMEOUT = 3;
constexpr guint PROP_CACHE_CAPACITY = 4;
constexpr guint PROP_DEVICE_NAME = 5;
constexpr guint PROP_IMPORT_PATH = 6;
constexpr guint PROP_MAX_HELD = 7;
constexpr guint PROP_FIRST_COUNTER = 8;  // then one per counter, then "stats"
constexpr guint PROP_STATS = PROP_FIRST_COUNTER + kBridgeCounterCount;
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

std::array<uint64_t, kBridgeCounterCount> snapshot(BridgeState &s) {
  auto v = load_counters(s.counters);
  ImportCacheStats c = s.imports.stats();
  v[kHits] = c.hits;
  v[kMisses] = c.misses;
  v[kEvictions] = c.evictions;
  v[kRefusals] = c.refusals + s.targets.stats().refusals;
  v[kDropped] = s.errors.dropped();
  std::lock_guard l(s.lock);
  if (s.device)
    v[kValidationMessages] = s.device->validation_messages();
  return v;
}

bool has_feature(GstCapsFeatures *f, const char *feature) {
  return f && gst_caps_features_contains(f, feature);
}

// Sink caps -> src caps: VkImages come out as fd-backed or system frames;
// other frames go on as they are, carrying the images' meta.
// Src caps -> sink caps: the reverse.
GstCaps *transform_structures(GstCaps *caps, GstPadDirection direction) {
  GstCaps *out = gst_caps_new_empty();
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    const GstStructure *st = gst_caps_get_structure(caps, i);
    auto append = [&](GstCapsFeatures *features) {
      gst_caps_append_structure_full(out, gst_structure_copy(st), features);
    };
    // dma-buf structures in this GStreamer version's form, in the layouts
    // the bridge imports or makes.
    auto append_dmabuf = [&](GstCapsFeatures *features, bool with_legacy) {
      gst_caps_append(out, dmabuf_caps_of(st, features, drm_linear(), with_legacy));
    };
    if (direction == GST_PAD_SINK) {
      if (has_feature(f, GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE)) {
        append_dmabuf(gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_DMABUF, nullptr), false);
        append(gst_caps_features_new_empty());
      } else {
        GstCapsFeatures *with = f ? gst_caps_features_copy(f) : gst_caps_features_new_empty();
        if (gst_caps_features_is_any(with)) {
          gst_caps_features_free(with);
          with = gst_caps_features_new_empty();
        }
        gst_caps_features_remove(with, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
        gst_caps_features_add(with, GST_CAPS_FEATURE_META_EF_VK_IMAGE);
        if (has_feature(with, GST_CAPS_FEATURE_MEMORY_DMABUF) && is_dma_drm_structure(st))
          append_dmabuf(with, false);
        else
          append(with);
      }
    } else {
      if (has_feature(f, GST_CAPS_FEATURE_META_EF_VK_IMAGE)) {
        GstCapsFeatures *without = gst_caps_features_copy(f);
        gst_caps_features_remove(without, GST_CAPS_FEATURE_META_EF_VK_IMAGE);
        if (gst_caps_features_get_size(without) == 0)
          gst_caps_features_add(without, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
        if (has_feature(without, GST_CAPS_FEATURE_MEMORY_DMABUF))
          append_dmabuf(without, true);
        else
          append(without);
      } else if (GstStructure *plain = plain_structure_of(st, drm_linear())) {
        gst_caps_append_structure_full(
            out, plain, gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE, nullptr));
      }
    }
  }
  return out;
}

// The largest image side of the device: VkImages on both sides of the bridge.
SizeLimit vk_size_limit(const vk::Device &device) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device.physical_device(), &props);
  const uint32_t side = props.limits.maxImageDimension2D;
  return {side > 0 && side < uint32_t(G_MAXINT) ? gint(side) : G_MAXINT,
          "this Vulkan device's maxImageDimension2D"};
}

// The device's limit (and the CPU's, for staging copies), once it is known.
GstCaps *gst_ef_vk_bridge_transform_caps(GstBaseTransform *trans, GstPadDirection direction,
                                         GstCaps *caps, GstCaps *filter) {
  BridgeState &s = state_of(trans);
  std::shared_ptr<vk::Device> device;
  {
    std::lock_guard l(s.lock);
    device = s.device;
  }
  GstCaps *result = transform_structures(caps, direction);
  if (device)
    result = narrow_to_limit(result, tighter(vk_size_limit(*device), cpu_size_limit()));
  return apply_caps_filter(result, filter);
}

// A dma-buf layout the bridge cannot import is named on the bus, not only
// refused as "not-negotiated".
gboolean gst_ef_vk_bridge_accept_caps(GstBaseTransform *trans, GstPadDirection direction,
                                      GstCaps *caps) {
  return accept_caps_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, caps,
                                   drm_linear());
}

// --- The device -------------------------------------------------------------

std::optional<DeviceUuid> parse_uuid(const char *text) {
  if (!text || std::strlen(text) != 32)
    return std::nullopt;
  DeviceUuid uuid;
  for (int i = 0; i < 16; ++i) {
    char byte[3] = {text[2 * i], text[2 * i + 1], 0};
    char *end = nullptr;
    uuid[i] = uint8_t(std::strtoul(byte, &end, 16));
    if (*end)
      return std::nullopt;
  }
  return uuid;
}

enum class Adopted { Yes, Skipped, Refused };

// A context set on the element names the device the application wants: one
// that cannot be used is an error. An answer to the bridge's own request
// (a neighbour's, or a pipeline's that remembered it from an earlier run)
// whose device is gone is skipped, and the search goes on.
Adopted adopt_context(GstEfVkBridge *self, GstContext *context, bool answer) {
  auto device = device_from_context(context);
  if (!device) {
    if (answer && device.error().code == ESTALE) {
      GST_INFO_OBJECT(self, "skipping an ef.vulkan.device context: %s",
                      device.error().message.c_str());
      return Adopted::Skipped;
    }
    GST_ELEMENT_ERROR(
        self, RESOURCE, SETTINGS,
        ("The ef.vulkan.device context cannot be used: %s", device.error().message.c_str()),
        (nullptr));
    return Adopted::Refused;
  }
  BridgeState &s = state_of(self);
  std::lock_guard l(s.lock);
  s.device = *device;
  GST_INFO_OBJECT(self, "using the Vulkan device \"%s\" of a context", s.device->name().c_str());
  return Adopted::Yes;
}

Adopted query_neighbours(GstEfVkBridge *self, GstPadDirection direction) {
  GstQuery *query = gst_query_new_context(GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  GstPad *pad = direction == GST_PAD_SRC ? GST_BASE_TRANSFORM_SRC_PAD(self)
                                         : GST_BASE_TRANSFORM_SINK_PAD(self);
  Adopted adopted = Adopted::Skipped;
  if (gst_pad_peer_query(pad, query)) {
    GstContext *context = nullptr;
    gst_query_parse_context(query, &context);
    if (context)
      adopted = adopt_context(self, context, true);
  }
  gst_query_unref(query);
  return adopted;
}

// The context of the element's type in its list (set by the application,
// a bin, or an answer to NEED_CONTEXT), as gst_element_get_context() has it.
Adopted adopt_listed_context(GstEfVkBridge *self, bool answer) {
  GstContext *context =
      gst_element_get_context(GST_ELEMENT(self), GST_EF_VULKAN_DEVICE_CONTEXT_TYPE);
  if (!context)
    return Adopted::Skipped;
  Adopted adopted = adopt_context(self, context, answer);
  gst_context_unref(context);
  if (adopted == Adopted::Skipped)
    forget_own_device_contexts(GST_ELEMENT(self));
  return adopted;
}

bool have_device(BridgeState &s) {
  std::lock_guard l(s.lock);
  return s.device != nullptr;
}

// GstContext's usual order: a context already set, the neighbours, the
// application (NEED_CONTEXT, answered synchronously by a bus handler or by
// a bin), then a device of the bridge's own, announced with HAVE_CONTEXT.
bool ensure_device(GstEfVkBridge *self) {
  BridgeState &s = state_of(self);
  if (have_device(s))
    return true;
  Adopted a = adopt_listed_context(self, false);
  if (a == Adopted::Skipped)
    a = query_neighbours(self, GST_PAD_SRC);
  if (a == Adopted::Skipped)
    a = query_neighbours(self, GST_PAD_SINK);
  if (a == Adopted::Skipped) {
    gst_element_post_message(
        GST_ELEMENT(self),
        gst_message_new_need_context(GST_OBJECT(self), GST_EF_VULKAN_DEVICE_CONTEXT_TYPE));
    a = adopt_listed_context(self, true);
  }
  if (a != Adopted::Skipped)
    return a == Adopted::Yes;
  vk::DeviceChoice choice;
  {
    std::lock_guard l(s.lock);
    choice.index = s.settings.device_index;
    choice.uuid = s.settings.device_uuid;
  }
  const char *validate = g_getenv("EF_VK_VALIDATION");
  choice.validation = validate && std::strcmp(validate, "0") != 0;
  auto device = vk::Device::create(choice);
  if (!device) {
    GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                      ("No usable Vulkan device: %s", device.error().message.c_str()), (nullptr));
    return false;
  }
  {
    std::lock_guard l(s.lock);
    s.device = *device;
  }
  GST_INFO_OBJECT(self, "made its own Vulkan device \"%s\"", (*device)->name().c_str());
  GstContext *context = device_context_new(**device);
  gst_element_set_context(GST_ELEMENT(self), context);
  gst_element_post_message(GST_ELEMENT(self),
                           gst_message_new_have_context(GST_OBJECT(self), context));
  return true;
}

gboolean gst_ef_vk_bridge_query(GstBaseTransform *trans, GstPadDirection direction,
                                GstQuery *query) {
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT) {
    const gchar *type = nullptr;
    gst_query_parse_context_type(query, &type);
    BridgeState &s = state_of(trans);
    std::shared_ptr<vk::Device> device;
    {
      std::lock_guard l(s.lock);
      device = s.device;
    }
    if (device && type && std::strcmp(type, GST_EF_VULKAN_DEVICE_CONTEXT_TYPE) == 0) {
      GstContext *context = device_context_new(*device);
      gst_query_set_context(query, context);
      gst_context_unref(context);
      return TRUE;
    }
  }
  return query_naming_layout(trans, GST_BASE_TRANSFORM_CLASS(parent_class), direction, query,
                             drm_linear());
}

// --- Caps and allocation ------------------------------------------------------

void warn_held_frame(GstEfVkBridge *self, GstBuffer *buffer, uint64_t number) {
  const std::string frame = describe_frame(buffer, number);
  BridgeState &s = state_of(self);
  s.count(kGateTimeouts);
  if (s.counters[kGateTimeouts].load() > kTimeoutWarnings) {
    GST_WARNING_OBJECT(self, "released %s after release-timeout", frame.c_str());
    return;
  }
  GST_ELEMENT_WARNING(self, RESOURCE, BUSY,
                      ("The application did not release %s within release-timeout; releasing "
                       "it to its producer now",
                       frame.c_str()),
                      ("arm the frame's GstEfVkImageMeta gate once GPU work on it has retired"));
}

gboolean gst_ef_vk_bridge_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps) {
  auto *self = GST_EF_VK_BRIDGE(trans);
  BridgeState &s = state_of(self);
  // Sizes are checked before GstVideoInfo, which cannot describe the largest.
  if (!ensure_device(self))
    return FALSE;
  const SizeLimit limit = tighter(vk_size_limit(*s.device), cpu_size_limit());
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
  if (!ensure_device(self))
    return FALSE;
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

// Host-pointer imports take whole pages only.
constexpr guint kPage = 4096;

GstBufferPool *fd_pool(GstCaps *caps, gsize size, guint min, guint max) {
  if (size > G_MAXUINT - kPage)
    return nullptr;  // a pool's sizes are guint
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, (size + kPage - 1) / kPage * kPage, min, max);
  ObjectPtr<GstAllocator> allocator(gst_ef_fd_allocator_new());
  gst_buffer_pool_config_set_allocator(config, allocator.get(), nullptr);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool, config)) {
    gst_object_unref(pool);
    return nullptr;
  }
  return pool;
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
  s.count(kFrames);
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
  s.held.reset();  // releases every held frame
  s.imports.clear();
  s.targets.clear();
  s.staging.reset();
  s.staging_buffer.reset();
  {
    std::lock_guard l(s.lock);
    s.device.reset();
  }
  // The device may go with it: so must the element's context naming it.
  forget_own_device_contexts(GST_ELEMENT(trans));
  return TRUE;
}

gboolean gst_ef_vk_bridge_sink_event(GstBaseTransform *trans, GstEvent *event) {
  BridgeState &s = state_of(trans);
  if (GST_EVENT_TYPE(event) == GST_EVENT_EOS) {
    auto values = snapshot(s);
    post_stats_message(GST_ELEMENT(trans), "efvkbridge-stats", kBridgeCounters, values);
  } else if ((GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_START ||
              GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) &&
             s.held) {
    s.held->release_all();  // at FLUSH_START also frees a streaming thread waiting for room
  }
  return GST_BASE_TRANSFORM_CLASS(parent_class)->sink_event(trans, event);
}

// --- Properties -------------------------------------------------------------

void gst_ef_vk_bridge_set_property(GObject *object, guint id, const GValue *value,
                                   GParamSpec *pspec) {
  BridgeState &s = state_of(object);
  if (id == PROP_MAX_ERRORS) {
    s.errors.set_max_errors(g_value_get_int(value));
    return;
  }
  std::lock_guard l(s.lock);
  switch (id) {
    case PROP_DEVICE_INDEX:
      s.settings.device_index = g_value_get_int(value);
      break;
    case PROP_DEVICE_UUID: {
      const char *text = g_value_get_string(value);
      s.settings.device_uuid = parse_uuid(text);
      if (text && *text && !s.settings.device_uuid)
        GST_WARNING_OBJECT(object, "device-uuid \"%s\" is not 32 hex digits; ignored", text);
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
}

std::string uuid_text(const DeviceUuid &uuid) {
  char text[33];
  for (int i = 0; i < 16; ++i)
    std::snprintf(text + 2 * i, 3, "%02x", uuid[i]);
  return text;
}

void gst_ef_vk_bridge_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  BridgeState &s = state_of(object);
  if (id >= PROP_FIRST_COUNTER && id <= PROP_STATS) {
    auto values = snapshot(s);
    if (id == PROP_STATS)
      g_value_take_boxed(value, stats_structure("efvkbridge-stats", kBridgeCounters, values));
    else
      g_value_set_uint64(value, values[id - PROP_FIRST_COUNTER]);
    return;
  }
  if (id == PROP_MAX_ERRORS) {
    g_value_set_int(value, s.errors.max_errors());
    return;
  }
  std::lock_guard l(s.lock);
  switch (id) {
    case PROP_DEVICE_INDEX:
      g_value_set_int(value, s.settings.device_index);
      break;
    case PROP_DEVICE_UUID:
      g_value_set_string(value, s.device ? uuid_text(s.device->uuid()).c_str()
                                : s.settings.device_uuid
                                    ? uuid_text(*s.settings.device_uuid).c_str()
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
      g_value_set_string(value, s.device ? s.device->name().c_str() : "");
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
                          "32 hex digits of VkPhysicalDeviceIDProperties::deviceUUID: the device "
                          "to open (overrides device-index); reads back the device in use",
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
  g_object_class_install_property(
      object_class, PROP_CACHE_CAPACITY,
      g_param_spec_uint("cache-capacity", "Cache capacity",
                        "Imports kept at most per direction (least recently used evicted). Each "
                        "pins one buffer, so at most capacity x frame size stays allocated. "
                        "Default: EF_IMPORT_CACHE_CAPACITY, else 16",
                        0, 1u << 20, default_cache_capacity(),
                        GParamFlags(rw | GST_PARAM_MUTABLE_PLAYING)));
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
  install_stat_properties(object_class, PROP_FIRST_COUNTER, kBridgeCounters,
                          "All counters in one structure (also posted as an element message "
                          "named efvkbridge-stats on EOS)");
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
  trans_class->transform = gst_ef_vk_bridge_transform;
  trans_class->query = gst_ef_vk_bridge_query;
  trans_class->start = gst_ef_vk_bridge_start;
  trans_class->stop = gst_ef_vk_bridge_stop;
  trans_class->sink_event = gst_ef_vk_bridge_sink_event;
  trans_class->passthrough_on_same_caps = FALSE;
}

static void gst_ef_vk_bridge_init(GstEfVkBridge *self) {
  self->state = new BridgeState();
}
