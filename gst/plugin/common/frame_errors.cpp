// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_errors.hpp"

namespace ef::gst {

FrameErrors::Verdict FrameErrors::bad_frame() {
  ++consecutive_;
  const gint max = max_errors();
  if (max >= 0 && consecutive_ > uint64_t(max))
    return Verdict::Fail;
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return Verdict::Drop;
}

GstFlowReturn refuse_frame(GstElement *element, FrameErrors &errors, GQuark domain, gint code,
                           const std::string &text, const std::string &debug,
                           std::source_location where) {
  const FrameErrors::Verdict verdict = errors.bad_frame();
  const bool drop = verdict == FrameErrors::Verdict::Drop;
  std::string detail = debug.empty() ? "" : debug + "; ";
  detail += std::to_string(errors.consecutive()) + " consecutive bad frame(s), max-errors " +
            std::to_string(errors.max_errors()) + (drop ? ": frame dropped" : ": stopping");
  // gst_element_message_full() takes the strings.
  gst_element_message_full(element, drop ? GST_MESSAGE_WARNING : GST_MESSAGE_ERROR, domain, code,
                           g_strdup(text.c_str()), g_strdup(detail.c_str()), where.file_name(),
                           where.function_name(), gint(where.line()));
  return drop ? GST_BASE_TRANSFORM_FLOW_DROPPED : GST_FLOW_ERROR;
}

void install_max_errors_property(GObjectClass *klass, guint id) {
  g_object_class_install_property(
      klass, id,
      g_param_spec_int(
          "max-errors", "Max errors",
          "Consecutive bad input frames (invalid layout, truncated or unmappable memory, a "
          "refused image) posted as a warning and dropped before one is posted as an error and "
          "stops the pipeline; a good frame starts the count again. 0: the first bad frame is "
          "an error; -1: never an error",
          -1, G_MAXINT, kDefaultMaxErrors,
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));
}

}  // namespace ef::gst
