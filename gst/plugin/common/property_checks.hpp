// SPDX-License-Identifier: LGPL-2.1-or-later
// When and whether a property may take a value, by GStreamer's conventions:
// a value that is invalid (GObject's own rule for one out of range), or a
// property set in a state where it cannot apply (filesrc's `location` while
// open), is refused with a warning and the property keeps its value, so
// that what reads back is what runs and a bad value never reaches a frame.
#pragma once

#include <gst/gst.h>

#include <string>

namespace ef::gst {

// Whether `pspec` may be set in `object`'s current state, by the
// GST_PARAM_MUTABLE_* flag it was installed with (READY: in NULL or READY,
// PAUSED: up to PAUSED; PLAYING or none: always). Where it may not, a
// warning names the property, the state and when it applies, and false.
bool settable_in_state(GObject *object, GParamSpec *pspec);

// The warning for a value of `pspec` refused because of `why` ("custom is
// not an orientation efconvert can apply"); the property keeps its value.
void refuse_value(GObject *object, GParamSpec *pspec, const std::string &why);

}  // namespace ef::gst
