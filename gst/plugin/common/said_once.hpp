// SPDX-License-Identifier: LGPL-2.1-or-later
// Messages an element posts once per run: caps queries and accept-caps are
// asked again on every retry of a negotiation, so a warning posted from
// them would repeat. Kept on the element itself (a new element never
// inherits an old one's silence) and forgotten when it stops (a restarted
// one says it again).
#pragma once

#include <gst/gst.h>

#include <string>

namespace ef::gst {

// True the first time `element` says `text` in this run; false after.
bool first_saying(GstElement *element, const std::string &text);

// The element stopped: everything may be said again.
void forget_sayings(GstElement *element);

}  // namespace ef::gst
