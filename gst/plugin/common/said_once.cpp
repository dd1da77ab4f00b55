// SPDX-License-Identifier: LGPL-2.1-or-later
#include "said_once.hpp"

#include <mutex>
#include <set>

namespace ef::gst {

namespace {

using Sayings = std::set<std::string>;

// Caps queries come from any thread: one lock for every element's set.
std::mutex g_lock;

GQuark sayings_quark() {
  static const GQuark quark = g_quark_from_static_string("ef-said-once");
  return quark;
}

}  // namespace

bool first_saying(GstElement *element, const std::string &text) {
  std::lock_guard lock(g_lock);
  auto *said = static_cast<Sayings *>(g_object_get_qdata(G_OBJECT(element), sayings_quark()));
  if (!said) {
    said = new Sayings();
    g_object_set_qdata_full(G_OBJECT(element), sayings_quark(), said,
                            [](gpointer p) { delete static_cast<Sayings *>(p); });
  }
  return said->insert(text).second;
}

void forget_sayings(GstElement *element) {
  std::lock_guard lock(g_lock);
  g_object_set_qdata(G_OBJECT(element), sayings_quark(), nullptr);
}

}  // namespace ef::gst
