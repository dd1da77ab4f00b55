// SPDX-License-Identifier: LGPL-2.1-or-later
#include "pad_templates.hpp"

namespace ef::gst {

namespace {

void add_template(GstElementClass *klass, const char *name, GstPadDirection direction,
                  const char *caps_text) {
  // gst_pad_template_new() takes its own reference on the caps.
  GstCaps *caps = gst_caps_from_string(caps_text);
  gst_element_class_add_pad_template(klass,
                                     gst_pad_template_new(name, direction, GST_PAD_ALWAYS, caps));
  gst_caps_unref(caps);
}

}  // namespace

void add_pad_templates(GstElementClass *klass, const char *sink_caps, const char *src_caps) {
  add_template(klass, "sink", GST_PAD_SINK, sink_caps);
  add_template(klass, "src", GST_PAD_SRC, src_caps);
}

}  // namespace ef::gst
