// SPDX-License-Identifier: LGPL-2.1-or-later
// GstHarness helpers shared by the element tests.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ef::test {

// An element of the harness's bin by name (borrowed: the bin keeps it).
GstElement *harness_element(GstHarness *h, const char *name);

// One counter of the element's "stats" structure; fails the test where
// the structure has no such field.
guint64 stat(GstElement *element, const char *counter);
// A string property's value ("" for NULL).
std::string string_property(GstElement *element, const char *name);

// A bus on the harness element, so errors posted by elements can be read.
// Give it back with release_bus, before or after gst_harness_teardown.
GstBus *attach_bus(GstHarness *h);
// Drops the queued messages and every later one, then the caller's reference.
void release_bus(GstBus *bus);
// The text of the first ERROR message on `bus`, "" if none.
std::string pop_error(GstBus *bus);
// The same for WARNING messages.
std::string pop_warning(GstBus *bus);

// Starts `element` alone (NULL -> PAUSED, on a bus of its own) and stops it
// again: the ERROR it posted, "" when it started (a start that failed
// without an error, or worked with one, fails the test).
std::string start_error(GstElement *element);

// gst-launch-1.0 `line` (shell words) as a user runs it, within 60 s: its
// exit status and what it printed (stdout, then stderr). Under a sanitizer,
// whose runtime the tool lacks, the line runs in this process instead: 1
// and its parse error or first ERROR, or 0.
struct LaunchRun {
  int status;
  std::string output;
};
LaunchRun run_gst_launch(const std::string &line);
// The text of a WARNING message.
std::string warning_text(GstMessage *msg);
// The texts of the WARNING messages on `bus`, taken off it.
std::vector<std::string> pop_warnings(GstBus *bus);

// Makes the harness's sink answer ALLOCATION queries with a pool of its own
// (min = max = `buffers`), of `allocator`'s memory (nullptr: system memory),
// as a downstream element with its own buffers does.
void offer_downstream_pool(GstHarness *h, GstAllocator *allocator, guint buffers);
// The same on any sink pad (an appsink's, in a pipeline).
void offer_pool_on_pad(GstPad *sinkpad, GstAllocator *allocator, guint buffers);

// A GstVideoInfo with strides padded by `pad_bytes` and `pad_rows` extra
// rows per plane (as decoders allocate), offsets and size to match.
GstVideoInfo padded_info(GstVideoFormat format, guint width, guint height, guint pad_bytes,
                         guint pad_rows);

// The max-errors rule seen from outside an element: sets max-errors on
// `element` (in harness `h`, bus attached), pushes `n_bad` frames of
// make_bad(), and checks each one: dropped with a WARNING containing `text`
// while within max-errors, else GST_FLOW_ERROR with an ERROR containing it
// (-1: never); the element's "dropped" statistic counts the drops. Returns
// the number of errors posted.
// Negotiates `in` -> `out` (caps strings) on `h` and pushes a frame: it must
// fail with an ERROR containing `says`, not GstVideoInfo's "Cannot parse caps".
void expect_caps_refused(GstHarness *h, const char *in, const char *out, const char *says);

// The text of the warnings logged while `run` runs, expected (no test
// failure): g_warning without a domain (ef's refused property values, see
// common/property_checks) and GObject's own (a value out of range). "" when
// nothing was logged.
std::string warnings_during(const std::function<void()> &run);

// Runs the gst-launch-1.0 line `description` (it must parse: every link
// made) to its first ERROR or EOS: "element: message | debug" of the first
// ERROR on the bus, "" at EOS or after 20 s.
std::string launch_error(const char *description);

// The caps `pad` answers for `filter` (NULL: any) bound width and height by
// a limit: each structure carries an int range whose maximum is `limit`, or
// below G_MAXINT when `limit` is 0.
void expect_bounded_sides(GstPad *pad, const char *filter, gint limit = 0);

// ef takes no fd that is not a dma-buf, memfd or shared-memory file, seen
// from outside an element: each frame of not_a_buffer_frame() (frames.hpp)
// pushed into `h`, whose element is at max-errors 0, fails with an ERROR
// that names the plane's fd and what the fd is, and nothing comes out; after
// each, `good(seed)` pushes a good frame and checks what comes out of it.
void expect_not_a_buffer_refused(GstHarness *h, const GstVideoInfo &info,
                                 const std::function<void(uint32_t seed)> &good);

// efconvert named "conv" with `props` (its backend, settings) from `in` in
// memfds (memory:DMABuf caps) to `out_caps` (an image or tensors; null: the
// input's caps, as attach-tensor passes the frame on).
GstHarness *convert_harness_to(const std::string &props, const GstVideoInfo &in,
                               const char *out_caps);
// What `h` (a convert_harness_to) makes of memfd_frame(in, seed): pushed,
// pulled, its bytes.
std::vector<guint8> converted_bytes(GstHarness *h, const GstVideoInfo &in, uint32_t seed);
// A buffer's bytes.
std::vector<guint8> buffer_bytes(GstBuffer *buffer);

// The same for efconvert with `props` (its backend), RGBA to RGB of one size:
// the good frames are memfds, their output checked byte for byte.
void expect_convert_not_a_buffer_refused(const char *props);

int push_bad_frames(GstHarness *h, GstElement *element, GstBus *bus, gint max_errors, int n_bad,
                    const std::function<GstBuffer *()> &make_bad, const char *text);

}  // namespace ef::test
