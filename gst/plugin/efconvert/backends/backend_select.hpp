// SPDX-License-Identifier: LGPL-2.1-or-later
// Which backend converts for the negotiated caps, from the registry's
// entries: the one asked for, else the one whose table alone has the
// conversion, else what the candidates' cost models say (backend_choice),
// timing those they cannot tell apart (backend_trial).
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>

#include "backend_registry.hpp"
#include "common/size_limits.hpp"

namespace ef::gst {

struct Selected {
  std::unique_ptr<ConvertBackend> backend;  // null: an error was posted
  std::string reason;                       // why, unless the backend says itself
};

// The backend for `in` -> `out` between `incaps` and `outcaps`. Logs which
// and why.
Selected make_backend(const BackendContext &ctx, const GstVideoInfo &in, const OutputSpec &out,
                      GstCaps *incaps, GstCaps *outcaps);

// The largest frame the backends that may run can take: the CPU path's
// where one of them has no limit of its own, else the largest of theirs (a
// GL context's where only GL will do; auto takes the CPU for frames beyond
// it).
SizeLimit size_limit(const BackendContext &ctx, GstCaps *incaps, GstCaps *outcaps);

}  // namespace ef::gst
