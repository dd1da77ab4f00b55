// SPDX-License-Identifier: LGPL-2.1-or-later
#include "setting_refusals.hpp"

#include <algorithm>

namespace ef::gst {

namespace {

// As gst-launch-1.0 would take it: crop=<1, 2, 3>, std=<0>, quant-scale=-0.5,
// video-direction=custom, attach-tensor="other/tensors, ...".
std::string serialized(const GValue *value) {
  if (G_VALUE_HOLDS_DOUBLE(value)) {
    gchar text[G_ASCII_DTOSTR_BUF_SIZE];
    return g_ascii_formatd(text, sizeof text, "%g", g_value_get_double(value));
  }
  if (GST_VALUE_HOLDS_ARRAY(value)) {
    std::string s = "<";
    for (guint i = 0; i < gst_value_array_get_size(value); ++i)
      s += (i ? ", " : "") + serialized(gst_value_array_get_value(value, i));
    return s + ">";
  }
  if (G_VALUE_HOLDS_ENUM(value)) {
    GEnumClass *klass = G_ENUM_CLASS(g_type_class_ref(G_VALUE_TYPE(value)));
    const GEnumValue *e = g_enum_get_value(klass, g_value_get_enum(value));
    std::string s = e ? e->value_nick : std::to_string(g_value_get_enum(value));
    g_type_class_unref(klass);
    return s;
  }
  if (GST_VALUE_HOLDS_CAPS(value) && !gst_value_get_caps(value))
    return "NULL";
  gchar *text = gst_value_serialize(value);
  std::string s = text ? text : "?";
  g_free(text);
  return GST_VALUE_HOLDS_CAPS(value) ? "\"" + s + "\"" : s;
}

// "std=< 0 > refused: std 0 of channel 0 is not above 0 (std takes ...)".
std::string refusal_text(GParamSpec *pspec, const GValue *value, const std::string &why,
                         const std::string &takes) {
  return std::string(pspec->name) + "=" + serialized(value) + " refused: " + why + " (" +
         pspec->name + " takes " + takes + ")";
}

}  // namespace

void SettingRefusals::refuse(GstElement *element, GParamSpec *pspec, const GValue *value,
                             const std::string &why, const std::string &takes) {
  const std::string text = refusal_text(pspec, value, why, takes);
  {
    std::lock_guard lock(lock_);
    if (!running_) {
      std::erase_if(kept_, [&](const auto &kept) { return kept.first == pspec->name; });
      kept_.emplace_back(pspec->name, text);
      GST_WARNING_OBJECT(element, "%s: the element will not start with it", text.c_str());
      return;
    }
  }
  GValue now = G_VALUE_INIT;
  g_value_init(&now, pspec->value_type);
  g_object_get_property(G_OBJECT(element), pspec->name, &now);
  GST_ELEMENT_WARNING(
      element, LIBRARY, SETTINGS,
      ("%s; %s keeps its value %s", text.c_str(), pspec->name, serialized(&now).c_str()),
      ("set while the element runs: the frames go on with the value it had"));
  g_value_unset(&now);
}

void SettingRefusals::accepted(GParamSpec *pspec) {
  std::lock_guard lock(lock_);
  std::erase_if(kept_, [&](const auto &kept) { return kept.first == pspec->name; });
}

bool SettingRefusals::start(GstElement *element) {
  std::string all;
  {
    std::lock_guard lock(lock_);
    for (const auto &kept : kept_)
      all += (all.empty() ? "" : "; ") + kept.second;
    running_ = all.empty();
  }
  if (all.empty())
    return true;
  GST_ELEMENT_ERROR(element, LIBRARY, SETTINGS, ("%s", all.c_str()),
                    ("set before the element started: it does not run on the values it had "
                     "instead; set a value it takes"));
  return false;
}

void SettingRefusals::stop() {
  std::lock_guard lock(lock_);
  running_ = false;
}

}  // namespace ef::gst
