// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cache_capacity.hpp"

#include <string>

#include "ef/import_cache.hpp"

namespace ef::gst {

void install_cache_capacity_property(GObjectClass *klass, guint id, const char *what) {
  // Interned: a static param spec's strings must outlive the class.
  const gchar *blurb = g_intern_string(
      (std::string(what) +
       " kept at most per cache (least recently used evicted). Each entry pins one buffer, so "
       "at most capacity x frame size stays allocated per cache. Applies at once: a smaller "
       "capacity evicts the entries beyond it when set; it holds across caps changes. "
       "Default: EF_IMPORT_CACHE_CAPACITY, else 16")
          .c_str());
  g_object_class_install_property(
      klass, id,
      g_param_spec_uint(
          "cache-capacity", "Cache capacity", blurb, 0, 1u << 20, default_cache_capacity(),
          GParamFlags(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)));
}

}  // namespace ef::gst
