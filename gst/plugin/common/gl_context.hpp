// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL context of an element that is not a GstGLBaseFilter (efconvert runs
// on the CPU too and must not need GL there): found or made on demand,
// shared with the pipeline through GstContext like GstGL's own elements.
#pragma once

#include <gst/gl/gl.h>

#include <mutex>
#include <string>

#include "ef/result.hpp"

namespace ef::gst {

class ElementGlContext {
 public:
  ElementGlContext() = default;
  ~ElementGlContext() { reset(); }
  ElementGlContext(const ElementGlContext &) = delete;
  ElementGlContext &operator=(const ElementGlContext &) = delete;

  // GstElement::set_context.
  void set_context(GstElement *element, GstContext *context);
  // Answers GST_QUERY_CONTEXT for our display and context; false otherwise.
  bool handle_query(GstElement *element, GstQuery *query);
  // The display, found in the pipeline or made (and then announced to it
  // as a GstContext, gst_gl_ensure_element_data), as GstGL's filters do at
  // NULL -> READY: false where no GL display can be opened.
  bool ensure_display(GstElement *element);
  // The context (borrowed; valid until reset()), found in the pipeline or
  // made. EIO with the reason when there is no GL. With `spread` > 1 and
  // nothing found beside the element, one of `spread` contexts of the
  // display, taken in turn by the elements of the process (made as they
  // are first needed, sharing with the first): the GL work of many streams
  // on a few GL threads rather than one or one each (a measurement, see
  // efconvert's gl_sharing.hpp).
  Result<GstGLContext *> ensure(GstElement *element, unsigned spread = 1);
  // The renderer string of the context, e.g. "llvmpipe (LLVM 15.0.7, 256 bits)".
  std::string renderer();
  void reset();

 private:
  // Recursive: finding a display posts need-context messages that may set
  // a context on this very element from inside ensure().
  std::recursive_mutex lock_;
  GstGLDisplay *display_ = nullptr;
  GstGLContext *other_ = nullptr;
  GstGLContext *context_ = nullptr;
};

}  // namespace ef::gst
