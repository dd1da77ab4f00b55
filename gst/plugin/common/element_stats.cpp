// SPDX-License-Identifier: LGPL-2.1-or-later
#include "element_stats.hpp"

#include <string>

namespace ef::gst {

std::string stats_blurb(const char *name, std::span<const CounterSpec> counters, bool full) {
  std::string blurb = std::string("Counters, as guint64 fields of a structure named ") + name +
                      " (also posted as an element message of that name on EOS, which "
                      "gst-launch-1.0 -m prints). Fields: ";
  if (!full) {
    // gst-inspect's text stays short: the names, and where each is told.
    for (size_t i = 0; i < counters.size(); ++i)
      blurb += (i ? ", " : "") + std::string(counters[i].name);
    return blurb +
           ". What each counts: the reference manual's element page, or EF_STATS_BLURB=full "
           "gst-inspect-1.0";
  }
  // "name: what it counts; ..." after the introduction: the manual's element
  // page splits it into a table.
  for (size_t i = 0; i < counters.size(); ++i)
    blurb += (i ? "; " : "") + std::string(counters[i].name) + ": " + counters[i].blurb;
  return blurb;
}

void install_stats_property(GObjectClass *klass, guint id, std::span<const CounterSpec> counters,
                            const char *name) {
  const bool full = g_strcmp0(g_getenv("EF_STATS_BLURB"), "full") == 0;
  // The blurb outlives the class: the spec is static.
  g_object_class_install_property(
      klass, id,
      g_param_spec_boxed(
          "stats", "Statistics", g_intern_string(stats_blurb(name, counters, full).c_str()),
          GST_TYPE_STRUCTURE, GParamFlags(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
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
