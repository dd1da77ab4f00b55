// SPDX-License-Identifier: LGPL-2.1-or-later
// Which backend converts for the negotiated caps: the one asked for, else
// what the frame path costs on this machine says (backend_choice), timing
// both where that is not clear-cut (backend_trial).
#pragma once

#include <gst/gst.h>

#include <memory>

#include "backend.hpp"
#include "common/size_limits.hpp"
#include "convert_state.hpp"

namespace ef::gst {

// The backend for s.in_info -> s.out_info, or null with an error posted on
// `element`. Logs which and why; the reason goes into s.reason.
std::unique_ptr<ConvertBackend> make_backend(GstElement *element, ConvertState &s,
                                             const Settings &st, GstCaps *incaps, GstCaps *outcaps);

// The largest frame the backend that must run can take: the GL context's
// where only GL will do, else the CPU path's (auto takes the CPU for frames
// beyond the GL context's limit).
SizeLimit size_limit(GstElement *element, ConvertState &s, const Settings &st, GstCaps *incaps,
                     GstCaps *outcaps);

}  // namespace ef::gst
