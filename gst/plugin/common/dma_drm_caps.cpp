// SPDX-License-Identifier: LGPL-2.1-or-later
#include "dma_drm_caps.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>
#include <utility>

#include "drm_fourcc.hpp"
#include "said_once.hpp"
#include "ef/import_key.hpp"
#include "common/gst_ptr.hpp"

namespace ef::gst {

namespace {

// Calls `fn` with each string of a string or list-of-strings value.
void for_each_string(const GValue *value, const std::function<void(const char *)> &fn) {
  if (!value)
    return;
  if (G_VALUE_HOLDS_STRING(value)) {
    fn(g_value_get_string(value));
    return;
  }
  if (GST_VALUE_HOLDS_LIST(value))
    for (guint i = 0; i < gst_value_list_get_size(value); ++i)
      for_each_string(gst_value_list_get_value(value, i), fn);
}

#ifdef EF_HAVE_DMA_DRM
// Sets `field` to one string, or a list of them.
void set_strings(GstStructure *s, const char *field, const std::vector<std::string> &strings) {
  GValue value = G_VALUE_INIT;
  if (strings.size() == 1) {
    g_value_init(&value, G_TYPE_STRING);
    g_value_set_string(&value, strings[0].c_str());
  } else {
    gst_value_list_init(&value, guint(strings.size()));
    for (const std::string &text : strings) {
      GValue item = G_VALUE_INIT;
      g_value_init(&item, G_TYPE_STRING);
      g_value_set_string(&item, text.c_str());
      gst_value_list_append_and_take_value(&value, &item);
    }
  }
  gst_structure_take_value(s, field, &value);
}

// GStreamer's own mapping, so the caps ef makes parse in the stock elements.
uint32_t fourcc_of(GstVideoFormat format) {
  return gst_video_dma_drm_fourcc_from_format(format);
}

// A video format is named by the LINEAR layout of its fourcc; another
// modifier of the same fourcc holds the same pixels, tiled or compressed.
GstVideoFormat format_of(const DrmFormat &drm) {
  return gst_video_dma_drm_fourcc_to_format(drm.fourcc);
}

std::optional<DrmFormat> parse_drm_format(const char *text) {
  guint64 modifier = 0;
  const guint32 fourcc = gst_video_dma_drm_fourcc_from_string(text, &modifier);
  if (fourcc == 0 || modifier == 0xffffffffffffffULL)
    return std::nullopt;
  return DrmFormat{fourcc, modifier};
}

// What `support` takes of the layouts `s` names (its drm-format list; for
// a structure in plain formats, every layout of those formats); all of
// `support` where `s` leaves it open.
std::vector<DrmFormat> taken_layouts(const GstStructure *s, const DrmSupport &support) {
  std::vector<DrmFormat> out;
  auto add = [&](const DrmFormat &f) {
    if (support.takes(f) && std::find(out.begin(), out.end(), f) == out.end())
      out.push_back(f);
  };
  if (is_dma_drm_structure(s)) {
    const GValue *drm = gst_structure_get_value(s, "drm-format");
    if (!drm) {
      for (const DrmFormat &f : support.formats())
        add(f);
      return out;
    }
    for_each_string(drm, [&](const char *text) {
      if (auto f = parse_drm_format(text))
        add(*f);
    });
    return out;
  }
  const GValue *formats = gst_structure_get_value(s, "format");
  std::set<GstVideoFormat> wanted;
  for_each_string(formats,
                  [&](const char *name) { wanted.insert(gst_video_format_from_string(name)); });
  for (const DrmFormat &f : support.formats())
    if (!formats || wanted.count(format_of(f)))
      add(f);
  return out;
}
#endif

}  // namespace

std::string drm_format_to_string(const DrmFormat &format) {
  char text[32];
  const uint32_t c = format.fourcc;
  if (format.modifier == kDrmFormatModLinear)
    std::snprintf(text, sizeof text, "%c%c%c%c", char(c), char(c >> 8), char(c >> 16),
                  char(c >> 24));
  else
    std::snprintf(text, sizeof text, "%c%c%c%c:0x%016" PRIx64, char(c), char(c >> 8), char(c >> 16),
                  char(c >> 24), format.modifier);
  return text;
}

DrmSupport::DrmSupport(const char *formats, std::vector<DrmFormat> extra) {
  GstStructure *s = gst_structure_from_string(
      (std::string("video/x-raw, format=(string)") + formats).c_str(), nullptr);
  for_each_string(gst_structure_get_value(s, "format"), [&](const char *name) {
    const GstVideoFormat format = gst_video_format_from_string(name);
#ifdef EF_HAVE_DMA_DRM
    const uint32_t fourcc = fourcc_of(format);
#else
    const uint32_t fourcc = drm_fourcc_from_video_format(format);
#endif
    if (fourcc != 0)
      formats_.push_back({fourcc, kDrmFormatModLinear});
  });
  gst_structure_free(s);
  for (const DrmFormat &f : extra)
    if (!takes(f))
      formats_.push_back(f);
}

bool DrmSupport::takes(const DrmFormat &format) const {
  return std::find(formats_.begin(), formats_.end(), format) != formats_.end();
}

std::string DrmSupport::describe() const {
  std::string text;
  for (const DrmFormat &f : formats_)
    text += (text.empty() ? "" : ", ") + drm_format_to_string(f);
  return text;
}

bool is_dma_drm_structure(const GstStructure *s) {
  return g_strcmp0(gst_structure_get_string(s, "format"), "DMA_DRM") == 0;
}

GstCaps *dmabuf_caps_of(const GstStructure *s, GstCapsFeatures *features, const DrmSupport &support,
                        bool with_legacy) {
  GstCaps *out = gst_caps_new_empty();
#ifdef EF_HAVE_DMA_DRM
  std::vector<std::string> names;
  for (const DrmFormat &f : taken_layouts(s, support))
    names.push_back(drm_format_to_string(f));
  if (!names.empty()) {
    GstStructure *drm = gst_structure_copy(s);
    gst_structure_set(drm, "format", G_TYPE_STRING, "DMA_DRM", nullptr);
    set_strings(drm, "drm-format", names);
    gst_caps_append_structure_full(out, drm, gst_caps_features_copy(features));
  }
  if (with_legacy && !is_dma_drm_structure(s))
    gst_caps_append_structure_full(out, gst_structure_copy(s), gst_caps_features_copy(features));
  gst_caps_features_free(features);
#else
  (void)support;
  (void)with_legacy;
  gst_caps_append_structure_full(out, gst_structure_copy(s), features);
#endif
  return out;
}

GstStructure *plain_structure_of(const GstStructure *s, const DrmSupport &support) {
  GstStructure *plain = gst_structure_copy(s);
  gst_structure_remove_field(plain, "drm-format");
#ifdef EF_HAVE_DMA_DRM
  if (!is_dma_drm_structure(s))
    return plain;
  std::vector<std::string> names;
  for (const DrmFormat &f : taken_layouts(s, support)) {
    const GstVideoFormat format = format_of(f);
    if (format == GST_VIDEO_FORMAT_UNKNOWN)
      continue;
    std::string name = gst_video_format_to_string(format);
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  if (names.empty()) {
    gst_structure_free(plain);
    return nullptr;
  }
  set_strings(plain, "format", names);
#else
  (void)support;
#endif
  return plain;
}

Result<VideoCaps> parse_video_caps(GstCaps *caps) {
  VideoCaps v;
#ifdef EF_HAVE_DMA_DRM
  if (gst_video_is_dma_drm_caps(caps)) {
    GstVideoInfoDmaDrm drm;
    gst_video_info_dma_drm_init(&drm);
    if (!gst_video_info_dma_drm_from_caps(&drm, caps) ||
        !gst_video_info_dma_drm_to_video_info(&drm, &v.info)) {
      gchar *text = gst_caps_to_string(caps);
      std::string message = std::string("cannot parse the DMA_DRM caps ") + text +
                            " (no drm-format, or a fourcc GStreamer has no video format for)";
      g_free(text);
      return Error{EINVAL, message};
    }
    v.drm = {drm.drm_fourcc, drm.drm_modifier};
    v.dma_drm = true;
    return v;
  }
#endif
  if (!gst_video_info_from_caps(&v.info, caps)) {
    gchar *text = gst_caps_to_string(caps);
    std::string message = std::string("cannot parse the caps ") + text;
    g_free(text);
    return Error{EINVAL, message};
  }
  v.drm = {drm_fourcc_from_video_format(GST_VIDEO_INFO_FORMAT(&v.info)), kDrmFormatModLinear};
  return v;
}

GstCaps *pool_caps(GstCaps *caps, const VideoCaps &parsed) {
  return parsed.dma_drm ? gst_video_info_to_caps(&parsed.info) : gst_caps_ref(caps);
}

bool refuse_untaken_drm_format(GstElement *element, GstCaps *caps, const DrmSupport &support) {
#ifdef EF_HAVE_DMA_DRM
  if (!caps || !gst_video_is_dma_drm_caps(caps))
    return false;
  const char *text = gst_structure_get_string(gst_caps_get_structure(caps, 0), "drm-format");
  if (!text)
    return false;
  auto format = parse_drm_format(text);
  if (format && support.takes(*format))
    return false;
  // Once per layout and run: accept-caps is asked again on every retry.
  if (!first_saying(element, std::string("drm-format ") + text))
    return true;
  GST_ELEMENT_WARNING(element, CORE, NEGOTIATION,
                      ("%s cannot import dma-bufs of drm-format %s: it imports %s",
                       GST_ELEMENT_NAME(element), text, support.describe().c_str()),
                      ("refused caps %" GST_PTR_FORMAT, caps));
  return true;
#else
  (void)element;
  (void)caps;
  (void)support;
  return false;
#endif
}

void name_untaken_caps_query(GstElement *element, GstQuery *query, const DrmSupport &support) {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
    return;
  GstCaps *filter = nullptr, *answer = nullptr;
  gst_query_parse_caps(query, &filter);
  gst_query_parse_caps_result(query, &answer);
  if (filter && answer && gst_caps_is_empty(answer))
    refuse_untaken_drm_format(element, filter, support);
}

gboolean accept_caps_naming_layout(GstBaseTransform *trans, GstBaseTransformClass *parent,
                                   GstPadDirection direction, GstCaps *caps,
                                   const DrmSupport &support) {
  if (parent->accept_caps(trans, direction, caps))
    return TRUE;
  if (direction == GST_PAD_SINK)
    refuse_untaken_drm_format(GST_ELEMENT(trans), caps, support);
  return FALSE;
}

gboolean query_naming_layout(GstBaseTransform *trans, GstBaseTransformClass *parent,
                             GstPadDirection direction, GstQuery *query,
                             const DrmSupport &support) {
  const gboolean answered = parent->query(trans, direction, query);
  if (direction == GST_PAD_SINK)
    name_untaken_caps_query(GST_ELEMENT(trans), query, support);
  return answered;
}

std::optional<NegotiatedCaps> negotiated_caps(GstElement *element, GstCaps *incaps,
                                              GstCaps *outcaps, const DrmSupport *in_support,
                                              const DrmSupport *out_support) {
  auto in = parse_video_caps(incaps);
  auto out = parse_video_caps(outcaps);
  if (!in || !out) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("Cannot parse caps"),
                      ("%s", (!in ? in : out).error().message.c_str()));
    return std::nullopt;
  }
  for (auto [parsed, support] : {std::pair{&*in, in_support}, std::pair{&*out, out_support}})
    if (support && parsed->dma_drm && !support->takes(parsed->drm)) {
      GST_ELEMENT_ERROR(
          element, CORE, NEGOTIATION,
          ("%s cannot import dma-bufs of drm-format %s: it takes %s", GST_ELEMENT_NAME(element),
           drm_format_to_string(parsed->drm).c_str(), support->describe().c_str()),
          ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
      return std::nullopt;
    }
  return NegotiatedCaps{*in, *out};
}

}  // namespace ef::gst
