// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element_stats.hpp"

#include <string>

namespace ef::gst {

void install_stat_properties(GObjectClass *klass, guint first_id,
                             std::span<const CounterSpec> counters, const char *name) {
  guint id = first_id;
  for (const CounterSpec &c : counters)
    g_object_class_install_property(
        klass, id++,
        g_param_spec_uint64(c.name, c.name, c.blurb, 0, G_MAXUINT64, 0,
                            GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  // The blurb outlives the class: the spec is static.
  const gchar *blurb = g_intern_string(
      (std::string("All counters in one structure (also posted as an element message named ") +
       name + " on EOS)")
          .c_str());
  g_object_class_install_property(
      klass, id,
      g_param_spec_boxed("stats", "Statistics", blurb, GST_TYPE_STRUCTURE,
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
