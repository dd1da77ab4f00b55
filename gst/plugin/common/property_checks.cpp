// SPDX-License-Identifier: LGPL-2.1-or-later
#include "property_checks.hpp"

#include "state_name.hpp"

#include <algorithm>

namespace ef::gst {

namespace {

// The highest state `pspec` may be set in, by its flags.
GstState highest_settable(GParamSpec *pspec) {
  if (pspec->flags & GST_PARAM_MUTABLE_PLAYING)
    return GST_STATE_PLAYING;
  if (pspec->flags & GST_PARAM_MUTABLE_PAUSED)
    return GST_STATE_PAUSED;
  if (pspec->flags & GST_PARAM_MUTABLE_READY)
    return GST_STATE_READY;
  return GST_STATE_PLAYING;  // no flag: nothing stated, nothing refused
}

}  // namespace

bool settable_in_state(GObject *object, GParamSpec *pspec) {
  const GstState highest = highest_settable(pspec);
  GST_OBJECT_LOCK(object);
  // The state being entered counts: a property set while the element goes
  // to PAUSED is set in PAUSED.
  const GstState state = std::max(GST_STATE(object), GST_STATE_PENDING(object));
  GST_OBJECT_UNLOCK(object);
  if (state <= highest)
    return true;
  g_warning(
      "%s: %s can only be set in the NULL%s state (it applies when the element starts); "
      "the element is %s, so %s keeps its value",
      GST_OBJECT_NAME(object), pspec->name,
      highest == GST_STATE_READY ? " or READY" : ", READY or PAUSED", state_name(state),
      pspec->name);
  return false;
}

void refuse_value(GObject *object, GParamSpec *pspec, const std::string &why) {
  g_warning("%s: %s refused: %s; %s keeps its value", GST_OBJECT_NAME(object), pspec->name,
            why.c_str(), pspec->name);
}

}  // namespace ef::gst
