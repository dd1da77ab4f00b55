// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element_stats.hpp"

#include <string>

namespace ef::gst {

void install_stats_property(GObjectClass *klass, guint id, std::span<const CounterSpec> counters,
                            const char *name) {
  // "name: what it counts; ..." after the introduction: gst-inspect's one
  // place for them, split into a table by the manual's element page.
  std::string blurb = std::string("Counters, as guint64 fields of a structure named ") + name +
                      " (also posted as an element message of that name on EOS, which "
                      "gst-launch-1.0 -m prints). Fields: ";
  for (size_t i = 0; i < counters.size(); ++i)
    blurb += (i ? "; " : "") + std::string(counters[i].name) + ": " + counters[i].blurb;
  // The blurb outlives the class: the spec is static.
  g_object_class_install_property(
      klass, id,
      g_param_spec_boxed("stats", "Statistics", g_intern_string(blurb.c_str()), GST_TYPE_STRUCTURE,
                         GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

GstStructure *stats_structure(const char *name, std::span<const CounterSpec> counters,
                              std::span<const uint64_t> values) {
  GstStructure *s = gst_structure_new_empty(name);
  for (size_t i = 0; i < counters.size() && i < values.size(); ++i)
    gst_structure_set(s, counters[i].name, G_TYPE_UINT64, guint64(values[i]), nullptr);
  return s;
}

void post_stats_message(GstElement *element, const char *name,
                        std::span<const CounterSpec> counters, std::span<const uint64_t> values) {
  gst_element_post_message(
      element,
      gst_message_new_element(GST_OBJECT(element), stats_structure(name, counters, values)));
}

}  // namespace ef::gst
