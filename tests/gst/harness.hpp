// SPDX-License-Identifier: LGPL-2.1-or-later
// GstHarness helpers shared by the element tests.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <string>

namespace ef::test {

// An element of the harness's bin by name (borrowed: the bin keeps it).
GstElement *harness_element(GstHarness *h, const char *name);

guint64 stat(GstElement *element, const char *counter);

// A bus on the harness element, so errors posted by elements can be read.
// Give it back with release_bus, before or after gst_harness_teardown.
GstBus *attach_bus(GstHarness *h);
// Drops the queued messages and every later one, then the caller's reference.
void release_bus(GstBus *bus);
// The text of the first ERROR message on `bus`, "" if none.
std::string pop_error(GstBus *bus);

// Makes the harness's sink answer ALLOCATION queries with a pool of its own
// (min = max = `buffers`), of `allocator`'s memory (nullptr: system memory),
// as a downstream element with its own buffers does.
void offer_downstream_pool(GstHarness *h, GstAllocator *allocator, guint buffers);

// A GstVideoInfo with strides padded by `pad_bytes` and `pad_rows` extra
// rows per plane (as decoders allocate), offsets and size to match.
GstVideoInfo padded_info(GstVideoFormat format, guint width, guint height, guint pad_bytes,
                         guint pad_rows);

}  // namespace ef::test
