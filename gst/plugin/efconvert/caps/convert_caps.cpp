// SPDX-License-Identifier: LGPL-2.1-or-later
#include "convert_caps.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "efconvert/backends/backend_registry.hpp"
#include "common/caps_filter.hpp"
#include "common/gst_ptr.hpp"
#include "common/size_limits.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "interlace.hpp"
#include "efconvert/tensors/tensor_caps.hpp"

namespace ef::gst {

namespace {

const char *feature_of(FrameMemory m) {
  return memory_kind(m).feature;
}

// The memories a structure with `f` may be in: one, or all for ANY.
Memories memories_of(GstCapsFeatures *f) {
  if (f && gst_caps_features_is_any(f))
    return kAnyMemory;
  return memory_bit(memory_in(f));
}

// The names a string field holds (one, or a list), or nullopt for any: no
// field, or DMA_DRM (whose formats the drm-format field gives, checked at
// set_caps).
std::optional<std::vector<std::string>> names_in(const GstStructure *s, const char *field) {
  const GValue *value = gst_structure_get_value(s, field);
  if (!value)
    return std::nullopt;
  std::vector<std::string> names;
  auto add = [&](const GValue *v) {
    if (G_VALUE_HOLDS_STRING(v) && g_value_get_string(v))
      names.emplace_back(g_value_get_string(v));
  };
  if (GST_VALUE_HOLDS_LIST(value))
    for (guint i = 0; i < gst_value_list_get_size(value); ++i)
      add(gst_value_list_get_value(value, i));
  else
    add(value);
  if (std::find(names.begin(), names.end(), "DMA_DRM") != names.end())
    return std::nullopt;
  return names;
}

bool any_of_in(const std::optional<std::vector<std::string>> &wanted,
               const std::vector<std::string> &names) {
  if (!wanted)
    return true;
  for (const std::string &w : *wanted)
    if (std::find(names.begin(), names.end(), w) != names.end())
      return true;
  return false;
}

std::string video_caps_text(FrameMemory m, const std::string &formats) {
  return std::string("video/x-raw(") + feature_of(m) + "), format = (string) " + formats +
         ", width = " GST_VIDEO_SIZE_RANGE ", height = " GST_VIDEO_SIZE_RANGE
         ", framerate = " GST_VIDEO_FPS_RANGE;
}

// The template structures of `formats` in memory `m`; dma-bufs in the form
// of this GStreamer version (a sink also takes 1.22's).
std::string template_text(FrameMemory m, const std::vector<std::string> &formats, bool sink) {
  const std::string plain = video_caps_text(m, caps_list(formats));
  if (m != FrameMemory::DmaBuf)
    return plain;
#ifdef EF_HAVE_DMA_DRM
  const std::string drm = EF_DMA_DRM_STRUCTURE(GST_CAPS_FEATURE_MEMORY_DMABUF);
  return sink ? drm + ";" + plain : drm;
#else
  (void)sink;
  return plain;
#endif
}

std::vector<std::string> inputs_in(FrameMemory m) {
  return union_of([&](const Production &row) { return (row.in & memory_bit(m)) != 0; }, false);
}

std::vector<std::string> images_out_in(FrameMemory m) {
  return union_of(
      [&](const Production &row) {
        return row.kind == OutputKind::Image && (row.out & memory_bit(m));
      },
      true);
}

// Appends `s` with its format set to `formats`, any size, and no
// colorimetry, aspect ratio or interlacing (the conversion decides them;
// outputs are progressive, interlaced inputs refused at set_caps with a
// message, interlace.hpp), in memory `m`;
// dma-buf structures in the form of this GStreamer version, in the layouts
// `drm` takes.
GstCaps *append_retargeted(GstCaps *out, const GstStructure *in, const std::string &formats,
                           FrameMemory m, const DrmSupport &drm) {
  GValue list = G_VALUE_INIT;
  GstStructure *templ =
      gst_structure_from_string(("video/x-raw, format=(string)" + formats).c_str(), nullptr);
  gst_value_init_and_copy(&list, gst_structure_get_value(templ, "format"));
  gst_structure_free(templ);
  GstStructure *s = gst_structure_copy(in);
  gst_structure_set_name(s, "video/x-raw");
  gst_structure_set_value(s, "format", &list);
  g_value_unset(&list);
  gst_structure_set(s, "width", GST_TYPE_INT_RANGE, 1, G_MAXINT, "height", GST_TYPE_INT_RANGE, 1,
                    G_MAXINT, nullptr);
  gst_structure_remove_fields(s, "colorimetry", "chroma-site", "pixel-aspect-ratio",
                              "texture-target", "drm-format", "interlace-mode", "field-order",
                              nullptr);
  GstCapsFeatures *features = gst_caps_features_new(feature_of(m), nullptr);
  if (m == FrameMemory::DmaBuf) {
    out = gst_caps_merge(out, dmabuf_caps_of(s, features, drm, &drm == &drm_in()));
    gst_structure_free(s);
    return out;
  }
  return gst_caps_merge_structure_full(out, s, features);
}

// The rows that make `kind` from input of the structure with features `f`
// and names `names` (to_src), or make it, in a structure with features
// `f`, from input in memory `m` (to sink).
auto rows_for(OutputKind kind, Memories here, FrameMemory there,
              const std::optional<std::vector<std::string>> &names, bool to_src) {
  return [=](const Production &row) {
    const Memories this_side = to_src ? row.in : row.out;
    const Memories other_side = to_src ? row.out : row.in;
    return row.kind == kind && (this_side & here) && (other_side & memory_bit(there)) &&
           any_of_in(names, to_src ? row.inputs : row.outputs);
  };
}

// The other side of structure `s` (with features `f`) in memory `m`: the
// images the tables make of it (to_src), or the inputs they make it from.
GstCaps *retarget_structure(GstCaps *out, const GstStructure *s, GstCapsFeatures *f, FrameMemory m,
                            bool to_src) {
  const bool tensor = is_tensor_structure(s);
  const auto names = names_in(s, tensor ? "types" : "format");
  const OutputKind kind = tensor ? OutputKind::Tensor : OutputKind::Image;
  const auto there = union_of(rows_for(kind, memories_of(f), m, names, to_src), to_src);
  if (there.empty())
    return out;
  if (!tensor)
    return append_retargeted(out, s, caps_list(there), m, to_src ? drm_out() : drm_in());
  // Frames of any format the tensor's makers read, at its frame rate.
  GstStructure *video = gst_structure_new_empty("video/x-raw");
  if (const GValue *rate = gst_structure_get_value(s, "framerate"))
    gst_structure_set_value(video, "framerate", rate);
  out = append_retargeted(out, video, caps_list(there), m, drm_in());
  gst_structure_free(video);
  return out;
}

// The tensors the tables make of the input structure `s` (with features
// `f`), in system memory, then as GL buffers.
GstCaps *append_tensors(GstCaps *out, const GstStructure *s, GstCapsFeatures *f) {
  for (const MemoryKind &kind : kMemoryKinds) {
    const FrameMemory m = kind.memory;
    if (!kind.tensors)
      continue;
    const auto types = union_of(
        rows_for(OutputKind::Tensor, memories_of(f), m, names_in(s, "format"), true), true);
    if (!types.empty())
      out = gst_caps_merge_structure_full(out, tensor_structure(caps_list(types), s),
                                          gst_caps_features_new(feature_of(m), nullptr));
  }
  return out;
}

std::vector<std::string> tensor_types(FrameMemory m) {
  return union_of(
      [m](const Production &row) {
        return row.kind == OutputKind::Tensor && (row.out & memory_bit(m));
      },
      true);
}

}  // namespace

std::string sink_template_caps() {
  std::string text;
  for (FrameMemory m : frame_memories())
    if (const auto formats = inputs_in(m); !formats.empty())
      text += (text.empty() ? "" : ";") + template_text(m, formats, true);
  return text;
}

std::string src_template_caps() {
  std::string text;
  for (FrameMemory m : frame_memories())
    if (const auto formats = images_out_in(m); !formats.empty())
      text += (text.empty() ? "" : ";") + template_text(m, formats, false);
  for (FrameMemory m : tensor_memories())
    if (const auto types = tensor_types(m); !types.empty())
      text += std::string(";") + kTensorsMedia + "(" + feature_of(m) +
              "), format=(string)static, num_tensors=(int)1, types=(string)" + caps_list(types) +
              ", framerate=" GST_VIDEO_FPS_RANGE;
  return text;
}

std::string src_pad_caps() {
  std::string text = src_template_caps();
  // attach-tensor: frames go out as they came, where a backend makes
  // tensors of them.
  for (FrameMemory m : frame_memories())
    if (const auto formats = union_of(
            [&](const Production &row) {
              return row.kind == OutputKind::Tensor && (row.in & memory_bit(m));
            },
            false);
        !formats.empty())
      text += ";" + template_text(m, formats, true);
  return text;
}

const DrmSupport &drm_in() {
  static const DrmSupport support(caps_list(inputs_in(FrameMemory::DmaBuf)).c_str());
  return support;
}
const DrmSupport &drm_out() {
  static const DrmSupport support(caps_list(images_out_in(FrameMemory::DmaBuf)).c_str());
  return support;
}

GstCaps *retarget_caps(GstPadDirection direction, GstCaps *caps, GstCaps *filter) {
  const bool to_src = direction == GST_PAD_SINK;
  GstCaps *result = gst_caps_new_empty();
  for (FrameMemory m : frame_memories())
    for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
      const GstStructure *s = gst_caps_get_structure(caps, i);
      GstCapsFeatures *f = gst_caps_get_features(caps, i);
      result = retarget_structure(result, s, f, m, to_src);
    }
  // Tensors last: without a preference from downstream, an image.
  for (guint i = 0; to_src && i < gst_caps_get_size(caps); ++i)
    result =
        append_tensors(result, gst_caps_get_structure(caps, i), gst_caps_get_features(caps, i));
  return apply_caps_filter(narrow_for_query(result, filter, cpu_size_limit()), filter);
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
    const GValue *rate = gst_structure_get_value(in, "framerate");
    if (is_tensor_structure(out)) {
      fixate_tensor_structure(out, w, h, rate);
      return gst_caps_fixate(othercaps);
    }
    if (w > 0)
      gst_structure_fixate_field_nearest_int(out, "width", w);
    if (h > 0)
      gst_structure_fixate_field_nearest_int(out, "height", h);
    if (rate && gst_structure_has_field(out, "framerate") && GST_VALUE_HOLDS_FRACTION(rate))
      gst_structure_fixate_field_nearest_fraction(out, "framerate",
                                                  gst_value_get_fraction_numerator(rate),
                                                  gst_value_get_fraction_denominator(rate));
  }
  return gst_caps_fixate(othercaps);
}

namespace {

bool progressive(GstElement *element, const GstVideoInfo &in, GstCaps *incaps) {
  const std::string problem = interlace_problem(in);
  if (problem.empty())
    return true;
  GST_ELEMENT_ERROR(element, CORE, NEGOTIATION, ("%s", problem.c_str()),
                    ("caps %" GST_PTR_FORMAT, incaps));
  return false;
}

}  // namespace

std::optional<Negotiated> negotiated_output(GstElement *element, GstCaps *incaps, GstCaps *outcaps,
                                            const TensorSettings &tensor) {
  if (!is_tensor_structure(gst_caps_get_structure(outcaps, 0))) {
    auto caps = negotiated_caps(element, incaps, outcaps, &drm_in(), &drm_out());
    if (!caps || !progressive(element, caps->in.info, incaps))
      return std::nullopt;
    return Negotiated{caps->in.info, OutputSpec(caps->out.info)};
  }
  auto caps = negotiated_caps(element, incaps, incaps, &drm_in(), nullptr);
  if (!caps || !progressive(element, caps->in.info, incaps))
    return std::nullopt;
  auto spec = parse_tensor_caps(outcaps, cpu_size_limit().max_side);
  if (!spec) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("Unsupported tensor caps: %s", spec.error().message.c_str()),
                      ("caps %" GST_PTR_FORMAT, outcaps));
    return std::nullopt;
  }
  if (std::string why = check_tensor_settings(tensor, *spec); !why.empty()) {
    GST_ELEMENT_ERROR(element, LIBRARY, SETTINGS,
                      ("Invalid tensor settings for %s: %s", describe(*spec).c_str(), why.c_str()),
                      ("caps %" GST_PTR_FORMAT, outcaps));
    return std::nullopt;
  }
  return Negotiated{caps->in.info, OutputSpec(*spec)};
}

GstCaps *attached_tensor_caps(GstElement *element, GstCaps *attach, GstCaps *incaps,
                              GstCaps *outcaps, GstVideoOrientationMethod turn) {
  if (!gst_caps_can_intersect(incaps, outcaps)) {
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("attach-tensor passes frames through: the output caps must be the input's"),
                      ("in %" GST_PTR_FORMAT ", out %" GST_PTR_FORMAT, incaps, outcaps));
    return nullptr;
  }
  GstCaps *made = retarget_caps(GST_PAD_SINK, incaps, attach);
  for (guint i = gst_caps_get_size(made); i-- > 0;)
    if (!is_tensor_structure(gst_caps_get_structure(made, i)))
      gst_caps_remove_structure(made, i);
  if (gst_caps_is_empty(made)) {
    gchar *text = gst_caps_to_string(attach);
    GST_ELEMENT_ERROR(element, CORE, NEGOTIATION,
                      ("attach-tensor %s: efconvert makes no such tensor of these frames", text),
                      ("in %" GST_PTR_FORMAT, incaps));
    g_free(text);
    gst_caps_unref(made);
    return nullptr;
  }
  return fixate_output_caps(GST_PAD_SINK, incaps, made, turn);
}

namespace {

std::string unread_formats(GstCaps *caps) {
  std::vector<std::string> unread;
  for (guint i = 0; caps && i < gst_caps_get_size(caps); ++i) {
    const Memories memories = memories_of(gst_caps_get_features(caps, i));
    const auto names = names_in(gst_caps_get_structure(caps, i), "format");
    if (!names || !gst_structure_has_name(gst_caps_get_structure(caps, i), "video/x-raw"))
      continue;
    for (const std::string &name : *names) {
      bool read = false;
      for (FrameMemory m : frame_memories())
        if (memories & memory_bit(m)) {
          const auto inputs = inputs_in(m);
          read = read || std::find(inputs.begin(), inputs.end(), name) != inputs.end();
        }
      if (!read && std::find(unread.begin(), unread.end(), name) == unread.end())
        unread.push_back(name);
    }
  }
  std::string text;
  for (const std::string &name : unread)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

bool reads_none_of(GstCaps *caps) {
  if (!caps || gst_caps_is_empty(caps) || gst_caps_is_any(caps))
    return false;
  for (guint i = 0; i < gst_caps_get_size(caps); ++i) {
    const GstStructure *s = gst_caps_get_structure(caps, i);
    const auto names = names_in(s, "format");
    if (!gst_structure_has_name(s, "video/x-raw") || !names || names->empty())
      return false;
    for (FrameMemory m : frame_memories())
      if (any_of_in(names, inputs_in(m)))
        return false;
  }
  return true;
}

std::string refused_output_message(GstElement *element, GstCaps *downstream) {
  if (!downstream || gst_caps_is_empty(downstream) || gst_caps_is_any(downstream))
    return "";
  CapsPtr made(gst_caps_from_string(src_template_caps().c_str()));
  if (gst_caps_can_intersect(downstream, made.get()))
    return "";
  std::string images;
  for (const std::string &name : images_out_in(FrameMemory::System))
    images += (images.empty() ? "" : ", ") + name;
  std::string types;
  for (const std::string &name : tensor_types(FrameMemory::System))
    types += (types.empty() ? "" : ", ") + name;
  gchar *text = gst_caps_to_string(downstream);
  const std::string message =
      std::string(GST_ELEMENT_NAME(element)) + " cannot make what downstream takes (" + text +
      "): it makes " + images +
      " frames (in system memory; memory:DMABuf and memory:GLMemory as the pad templates say) "
      "and other/tensors of " +
      types;
  g_free(text);
  return message;
}

std::string refused_input_message(GstElement *element, GstCaps *caps) {
  const std::string formats = unread_formats(caps);
  GstVideoInfo info;
  if (formats.empty())
    return gst_caps_is_fixed(caps) && gst_video_info_from_caps(&info, caps)
               ? interlace_problem(info)
               : "";
  const auto inputs = inputs_in(FrameMemory::System);
  std::string list;
  for (const std::string &name : inputs)
    list += (list.empty() ? "" : ", ") + name;
  return std::string(GST_ELEMENT_NAME(element)) + " cannot convert " + formats +
         " frames: it reads " + list +
         " (in system memory; memory:DMABuf and memory:GLMemory as the pad templates say)";
}

GstCaps *without_memory(GstCaps *caps, FrameMemory m) {
  caps = gst_caps_make_writable(caps);
  for (guint i = gst_caps_get_size(caps); i-- > 0;) {
    GstCapsFeatures *f = gst_caps_get_features(caps, i);
    if (f && !gst_caps_features_is_any(f) && gst_caps_features_contains(f, feature_of(m)))
      gst_caps_remove_structure(caps, i);
  }
  return caps;
}

}  // namespace ef::gst
