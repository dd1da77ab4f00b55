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
  // Whether the element has a display already (set on it by the
  // application or a bin, or found by ensure_display/ensure): GL is then
  // open in the pipeline, and asking it more costs nothing new.
  bool has_display();
  // The context (borrowed; valid until reset()), found in the pipeline or
  // made. EIO with the reason when there is no GL. With `pool` = 0, a
  // context of the display (any one it has, else one made and added to
  // it); with `pool` = K >= 1 and no context beside the element, one of
  // the first K contexts of the display's pool (gl_context.cpp), taken
  // in turn by the elements that ask for that K: the GL work of many
  // streams on K GL threads rather than one or one each (efconvert's
  // gl-contexts, gl_sharing.hpp).
  Result<GstGLContext *> ensure(GstElement *element, unsigned pool = 0);
  // Where ensure() took the context from, for the log: "" before it gave
  // one, e.g. "slot 1 of 2 of the display's pool (made)".
  std::string taken();
  // Drops the context (the display stays) where it was taken by an
  // ensure() with another `pool` (a setting changed while the element was
  // READY): the next ensure() takes one anew. Only where no backend uses it.
  void retake_unless(unsigned pool);
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
  std::string taken_;
  unsigned pool_ = 0;  // the `pool` of the ensure() that took context_
};

// The largest pool ensure() takes from (efconvert's gl-contexts range).
constexpr unsigned kMaxGlContextPool = 64;

}  // namespace ef::gst
