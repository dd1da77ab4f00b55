// SPDX-License-Identifier: LGPL-2.1-or-later
#include "size_limits.hpp"

#include "said_once.hpp"

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

// size_problem() of one structure.
std::string structure_size_problem(const GstStructure *s, const SizeLimit &limit) {
  for (const char *side : {"width", "height"}) {
    gint v = 0;
    if (gst_structure_get_int(s, side, &v) && v > limit.max_side)
      return std::string(side) + " " + std::to_string(v) + " exceeds " + limit.what + " " +
             std::to_string(limit.max_side);
  }
  return "";
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

GstCaps *narrow_for_query(GstCaps *caps, GstCaps *filter, const SizeLimit &limit,
                          const char *feature) {
  return filter ? narrow_to_limit(caps, limit, feature) : caps;
}

void refuse_size_in_caps_query(GstElement *element, GstQuery *query, const SizeLimit &limit) {
  if (GST_QUERY_TYPE(query) != GST_QUERY_CAPS)
    return;
  GstCaps *filter = nullptr;
  gst_query_parse_caps(query, &filter);
  if (!filter || gst_caps_is_empty(filter) || gst_caps_is_any(filter))
    return;
  // Only where everything upstream offers lies beyond: a source with a
  // size that works is answered as usual.
  std::string problem;
  for (guint i = 0; i < gst_caps_get_size(filter); ++i) {
    problem = structure_size_problem(gst_caps_get_structure(filter, i), limit);
    if (problem.empty())
      return;
  }
  GstCaps *none = gst_caps_new_empty();
  gst_query_set_caps_result(query, none);
  gst_caps_unref(none);
  // An error, not a warning: negotiation cannot succeed, and gst-launch-1.0
  // prints errors at once (a warning just before one is often lost).
  if (first_saying(element, "size " + problem))
    GST_ELEMENT_ERROR(
        element, CORE, NEGOTIATION,
        ("%s cannot take these frames: %s", GST_ELEMENT_NAME(element), problem.c_str()),
        ("every size upstream offers is beyond it (caps query %" GST_PTR_FORMAT ")", filter));
}

std::string size_problem(GstCaps *caps, const SizeLimit &limit) {
  if (!caps || gst_caps_get_size(caps) == 0)
    return "";
  return structure_size_problem(gst_caps_get_structure(caps, 0), limit);
}

gboolean refuse_caps(GstElement *element, const std::string &problem, GstCaps *caps) {
  GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("Unsupported frame size: %s", problem.c_str()),
                    ("caps %" GST_PTR_FORMAT, caps));
  return FALSE;
}

}  // namespace ef::gst
