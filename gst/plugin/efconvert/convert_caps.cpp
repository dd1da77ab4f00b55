// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convert_caps.hpp"

#include <algorithm>
#include <string>

#include "common/caps_filter.hpp"
#include "common/size_limits.hpp"
#include "convert_params.hpp"

namespace ef::gst {

namespace {

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

}  // namespace

const DrmSupport &drm_in() {
  static const DrmSupport support(EF_CONVERT_IN_FORMATS);
  return support;
}
const DrmSupport &drm_out() {
  static const DrmSupport support(EF_CONVERT_OUT_FORMATS);
  return support;
}

GstCaps *retarget_caps(GstPadDirection direction, GstCaps *caps, GstCaps *filter) {
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

GstCaps *fixate_output_caps(GstPadDirection direction, GstCaps *caps, GstCaps *othercaps,
                            GstVideoOrientationMethod turn) {
  othercaps = gst_caps_truncate(gst_caps_make_writable(othercaps));
  if (direction == GST_PAD_SINK) {
    GstStructure *in = gst_caps_get_structure(caps, 0);
    GstStructure *out = gst_caps_get_structure(othercaps, 0);
    gint w = 0, h = 0;
    gst_structure_get_int(in, "width", &w);
    gst_structure_get_int(in, "height", &h);
    if (direction_swaps_axes(turn))
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

bool is_gl_caps(GstCaps *caps) {
  return memory_of(caps) == FrameMemory::Gl;
}

FrameMemory memory_of(GstCaps *caps) {
  GstCapsFeatures *f = gst_caps_get_features(caps, 0);
  // Spelt out: GstGL's headers, which name it, are missing from a build without GL.
  if (f && gst_caps_features_contains(f, "memory:GLMemory"))
    return FrameMemory::Gl;
  if (f && gst_caps_features_contains(f, GST_CAPS_FEATURE_MEMORY_DMABUF))
    return FrameMemory::DmaBuf;
  return FrameMemory::System;
}

}  // namespace ef::gst
