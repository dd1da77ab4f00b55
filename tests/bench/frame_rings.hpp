// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames prepared once and pushed again and again by the benchmarks, so
// that the source costs nothing per frame: 1080p NV12 pictures of a
// scrolling videotestsrc pattern, as GL memory of the program's own GL
// context (uploaded once, as a hardware decoder hands frames out) or as
// system memory.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ef::bench {

// The program's GL display and context, which every GL element of the
// measured pipelines uses (answer_gl_context() gives it to them).
struct ProgramGl {
  GstGLDisplay *display = nullptr;
  GstGLContext *context = nullptr;
  std::string renderer, version, error;

  ProgramGl();
  ~ProgramGl();
  ProgramGl(const ProgramGl &) = delete;
  ProgramGl &operator=(const ProgramGl &) = delete;
};

// A pad probe (GST_PAD_PROBE_TYPE_QUERY_UPSTREAM on a source's pad, `data`
// the ProgramGl, `element` set with gst_pad_add_probe's element below)
// answering GL context queries with the program's display and context, as
// a decoder answers them with its own.
struct ContextAnswer {
  GstElement *element;
  const ProgramGl *gl;
};
GstPadProbeReturn answer_gl_context(GstPad *pad, GstPadProbeInfo *info, gpointer answer);

// `slots` consecutive frames of videotestsrc `pattern` at 1920x1080 NV12.
class FrameRing {
 public:
  // System memory.
  FrameRing(guint slots, const char *pattern);
  // GL memory of `context`, in a GL pool of its own, uploaded once.
  FrameRing(guint slots, const char *pattern, GstGLContext *context);
  ~FrameRing();
  FrameRing(const FrameRing &) = delete;
  FrameRing &operator=(const FrameRing &) = delete;

  const std::string &error() const { return error_; }
  GstCaps *caps() const { return caps_; }
  const GstVideoInfo &info() const { return info_; }
  // Frame n modulo the ring, a new reference.
  GstBuffer *frame(uint64_t n) const { return gst_buffer_ref(frames_[n % frames_.size()]); }

 private:
  std::vector<GstSample *> pull(guint slots, const char *pattern);
  void fill_gl(const std::vector<GstSample *> &pictures, GstGLContext *context);

  GstVideoInfo info_{};
  GstCaps *caps_ = nullptr;
  GstBufferPool *pool_ = nullptr;
  std::vector<GstBuffer *> frames_;
  std::string error_;
};

}  // namespace ef::bench
