// SPDX-License-Identifier: LGPL-2.1-or-later
// A refusal in set_caps said once. The sink pad sends a refused caps event
// again before every later buffer and serialized query, each a set_caps
// with the same caps, and the refusal posted the first time would be posted
// each time (three errors for three frames of one bad stream). A retry of
// the caps last refused, under the same settings, is refused without a
// word; other caps, a settings revision of the element's own (a property
// that can change the outcome) or a stop (forget()) are checked and said
// again.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <utility>

#include "common/gst_ptr.hpp"

namespace ef::gst {

class RefusedCaps {
 public:
  // configure(), which posts its own refusal, unless these caps were
  // refused under this revision already (then a debug line in `category`).
  template <typename Configure>
  gboolean set_caps(GstDebugCategory *category, GstElement *element, guint64 revision,
                    GstCaps *incaps, GstCaps *outcaps, Configure &&configure) {
    if (last_ && last_->revision == revision && gst_caps_is_equal(last_->in.get(), incaps) &&
        gst_caps_is_equal(last_->out.get(), outcaps)) {
      GST_CAT_DEBUG_OBJECT(category, element,
                           "refused again (posted once): %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
                           incaps, outcaps);
      return FALSE;
    }
    if (!std::forward<Configure>(configure)()) {
      last_ = Last{CapsPtr(gst_caps_ref(incaps)), CapsPtr(gst_caps_ref(outcaps)), revision};
      return FALSE;
    }
    last_.reset();
    return TRUE;
  }

  void forget() { last_.reset(); }

 private:
  struct Last {
    CapsPtr in, out;
    guint64 revision = 0;
  };
  std::optional<Last> last_;
};

}  // namespace ef::gst
