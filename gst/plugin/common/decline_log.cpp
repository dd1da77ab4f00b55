// SPDX-License-Identifier: LGPL-2.1-or-later
#include "decline_log.hpp"

// Every line goes to the element's own category, where its tests and users
// look for it.
#define GST_CAT_DEFAULT category_

namespace ef::gst {

const char *DeclineLog::text(Decline why) const {
  switch (why) {
    case Decline::SystemMemory:
      return texts_.system_memory;
    case Decline::NoIdentity:
      return "input memory has no buffer identity";
    case Decline::Refused:
      return "identity validation refused the cached import";
    case Decline::ImportFailed:
      return texts_.import_failed;
    case Decline::NoDriverSupport:
      return texts_.no_driver_support;
  }
  return "unknown";
}

void DeclineLog::decline(GstElement *element, Decline why, const std::string &detail) {
  counts_[unsigned(why)].fetch_add(1, std::memory_order_relaxed);
  const uint32_t bit = 1u << unsigned(why);
  if (texts_.heading && !(warned_.fetch_or(bit) & bit))
    GST_ELEMENT_WARNING(element, STREAM, NOT_IMPLEMENTED, ("%s: %s", texts_.heading, text(why)),
                        ("%s", detail.c_str()));
  GST_INFO_OBJECT(element, "declined: %s: %s", text(why), detail.c_str());
}

void DeclineLog::refused(GstElement *element, const std::string &error) const {
  GST_INFO_OBJECT(element, "%s refused by validation: %s", texts_.what, error.c_str());
}

void DeclineLog::switched_off(GstElement *element, const std::string &error) const {
  GST_WARNING_OBJECT(element, "%s not imported, copying from now on: %s", texts_.what,
                     error.c_str());
}

uint64_t DeclineLog::count() const {
  uint64_t n = 0;
  for (const auto &c : counts_)
    n += c.load(std::memory_order_relaxed);
  return n;
}

}  // namespace ef::gst
