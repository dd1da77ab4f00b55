// SPDX-License-Identifier: LGPL-2.1-or-later
#include "size_limits.hpp"

namespace ef::gst {

namespace {

constexpr gint kCpuMaxSide = 16384;

// The intersection of `value` with [1, max], into `out`; false when empty.
bool narrowed(const GValue *value, gint max, GValue *out) {
  GValue range = G_VALUE_INIT;
  g_value_init(&range, GST_TYPE_INT_RANGE);
  gst_value_set_int_range(&range, 1, max);
  const bool ok = gst_value_intersect(out, value, &range);
  g_value_unset(&range);
  return ok;
}

}  // namespace

SizeLimit cpu_size_limit() {
  return {kCpuMaxSide, "the CPU path's maximum frame side"};
}

SizeLimit tighter(SizeLimit a, SizeLimit b) {
  return a.max_side <= b.max_side ? a : b;
}

GstCaps *narrow_to_limit(GstCaps *caps, const SizeLimit &limit, const char *feature) {
  if (limit.max_side == G_MAXINT)
    return caps;
  caps = gst_caps_make_writable(caps);
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    if (feature && !(f && gst_caps_features_contains(f, feature)))
      continue;
    GstStructure *s = gst_caps_get_structure(caps, i);
    const GValue *w = gst_structure_get_value(s, "width");
    const GValue *h = gst_structure_get_value(s, "height");
    if (!w || !h)
      continue;
    GValue nw = G_VALUE_INIT, nh = G_VALUE_INIT;
    const bool ok_w = narrowed(w, limit.max_side, &nw);
    const bool ok_h = narrowed(h, limit.max_side, &nh);
    if (ok_w && ok_h) {
      gst_structure_take_value(s, "width", &nw);
      gst_structure_take_value(s, "height", &nh);
      continue;
    }
    if (ok_w)
      g_value_unset(&nw);
    if (ok_h)
      g_value_unset(&nh);
  }
  return caps;
}

std::string size_problem(GstCaps *caps, const SizeLimit &limit) {
  if (!caps || gst_caps_get_size(caps) == 0)
    return "";
  const GstStructure *s = gst_caps_get_structure(caps, 0);
  for (const char *side : {"width", "height"}) {
    gint v = 0;
    if (gst_structure_get_int(s, side, &v) && v > limit.max_side)
      return std::string(side) + " " + std::to_string(v) + " exceeds " + limit.what + " " +
             std::to_string(limit.max_side);
  }
  return "";
}

gboolean refuse_caps(GstElement *element, const std::string &problem, GstCaps *caps) {
  GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("Unsupported frame size: %s", problem.c_str()),
                    ("caps %" GST_PTR_FORMAT, caps));
  return FALSE;
}

}  // namespace ef::gst
