// SPDX-License-Identifier: LGPL-2.1-or-later
// The stress suite's runner and probes. Every case is its own Check test case
// (one TCase, named after the case), so Check forks it: a crash fails that
// case with its signal named, a hang fails it at its timeout, and
// CK_RUN_CASE=<name> runs one case alone. Waits inside a case are bounded too,
// so a stuck pipeline fails with what it was waiting for.
#pragma once

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include <functional>
#include <string>
#include <vector>

namespace ef::stress {

// 1 normally; EF_STRESS_LONG=N multiplies frame counts and cycles by N
// (EF_STRESS_LONG=1 means 10).
int scale();

// Registers a case; `timeout_s` bounds the forked child (scaled by scale()).
void add(const std::string &name, std::function<void()> body, int timeout_s = 30);
// Runs the cases registered by `register_cases(group)`, group = argv[1] (all
// groups when absent).
int run(int argc, char **argv, const char *suite,
        const std::function<void(const std::string &group)> &register_cases);

// Open file descriptors of this process and its resident set in KiB.
double open_fds();
double rss_kib();
// The address space of this process's memfd and dma-buf mappings in KiB:
// what a frame mapped and never unmapped grows, whether touched or not.
double buffer_mappings_kib();
// Bytes the program holds from malloc (every arena, mmapped chunks too), in
// KiB: unlike RSS, free memory the allocator keeps for re-use does not count.
double heap_in_use_kib();

// Samples of a counter taken at regular intervals. Warm-up (the first third)
// is ignored; growth is the mean of the last third minus the mean of the
// middle third.
struct Series {
  std::string what;
  std::vector<double> samples;
  double growth() const;
  // "" when the growth is at most `allowed`, else the figures.
  std::string check(double allowed) const;
  std::string summary() const;
};

// A message an element posted on the bus.
struct BusMessage {
  GstMessageType type;
  std::string source, text;
};

// A pipeline described as gst-launch text with an appsrc named "src" and an
// appsink named "sink"; errors and warnings are collected as they come.
class Pipeline {
 public:
  explicit Pipeline(const std::string &description);
  ~Pipeline();
  Pipeline(const Pipeline &) = delete;
  Pipeline &operator=(const Pipeline &) = delete;

  GstElement *bin() const { return pipeline_; }
  GstElement *element(const char *name) const;
  GstAppSrc *src() const { return src_; }
  // The appsrc's caps; takes `caps`.
  void set_caps(GstCaps *caps);
  // Fails the case when the state change does not complete within `timeout_ms`.
  void set_state(GstState state, int timeout_ms = 5000);
  void push(GstBuffer *buffer);
  // A sample of the sink, nullptr when none came within `timeout_ms`.
  GstSample *pull(int timeout_ms);
  // Drains the bus into messages(); stops early at an error.
  void poll_bus(int timeout_ms = 0);
  // Waits up to `timeout_ms` for an error or a warning; the first one seen.
  const BusMessage *wait_error_or_warning(int timeout_ms);
  const std::vector<BusMessage> &messages() const { return messages_; }
  std::string errors() const;  // the text of every error and warning, "" if none
  bool has_error() const;      // an ERROR among messages()
  // Gives the pipeline the process's one GstGLDisplay, as an application
  // making pipelines one after another does (GstGL keeps a display's EGL
  // device state, and stops making contexts after about a hundred displays).
  void share_gl_display();
  void clear_messages() { messages_.clear(); }

 private:
  GstElement *pipeline_ = nullptr;
  GstAppSrc *src_ = nullptr;
  GstAppSink *sink_ = nullptr;
  GstBus *bus_ = nullptr;
  std::vector<BusMessage> messages_;
};

// Whether a GL context made on the shared display is still alive: the display
// keeps weak refs to the contexts of its pipelines, and hands a live one to
// the next pipeline, so a leaked context ref never adds up per pipeline.
bool gl_context_alive();

// Whether `object` has a property `name` (another element's counter or knob
// that may not exist in this build).
bool has_property(gpointer object, const char *name);

// Why this machine cannot run GL or Vulkan cases, "" when it can. Probed in
// a child process, so the runner never holds a GPU context across fork().
std::string gl_missing();
std::string vulkan_missing();

// Called from register_cases: the group cannot run here; run() prints why and
// returns 77 (SKIP) unless another group registered cases.
void skip_group(const std::string &why);

// Fails the running case with a message (Check's fail, usable outside
// GST_START_TEST bodies).
[[noreturn]] void fail_case(const std::string &message);

}  // namespace ef::stress
