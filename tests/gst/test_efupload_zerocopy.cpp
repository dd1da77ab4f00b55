// SPDX-License-Identifier: LGPL-2.1-or-later
// efupload's zero-copy path: memfd frames imported into GL through the
// retaining cache. Needs EGL_EXT_image_dma_buf_import (Mesa 25 llvmpipe).
#include <gst/allocators/allocators.h>
#include <gst/ef/gstef.h>
#include <gst/gl/gl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "short_fds.hpp"

using namespace ef::test;

namespace {

struct Upload {
  GstHarness *h;
  GstElement *up;
  GstVideoInfo info;

  explicit Upload(const GstVideoInfo &in, const char *launch = "efupload name=up ! gldownload")
      : h(gst_harness_new_parse(launch)), info(in) {
    up = harness_element(h, "up");
    GstCaps *src = caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF);
    GstCaps *sink = caps_for(info);
    gst_harness_set_caps(h, src, sink);
  }
  ~Upload() { gst_harness_teardown(h); }

  // Pushes `in` and checks the frame that comes out holds `seed`'s pattern.
  void push_and_check(GstBuffer *in, uint32_t seed) {
    const char *memory = gst_is_fd_memory(gst_buffer_peek_memory(in, 0)) ? "fd" : "system";
    fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
    GstBuffer *out = gst_harness_try_pull(h);
    fail_unless(out != nullptr, "no output frame");
    std::string bad = check_buffer(out, info, seed);
    fail_unless(bad.empty(), "%s %dx%d from %s memory, frame %u: %s", GST_VIDEO_INFO_NAME(&info),
                info.width, info.height, memory, seed, bad.c_str());
    gst_buffer_unref(out);
  }
};

GstVideoInfo info_of(GstVideoFormat format, guint w = 64, guint h = 48) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

constexpr GstVideoFormat kImportable[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_GRAY8,
};

}  // namespace

// Every format from memfds: pixel-exact through efupload ! gldownload, and
// imported (not copied) wherever the driver imports the format.
GST_START_TEST(test_round_trip_memfd_imported) {
  for (GstVideoFormat format : kImportable) {
    Upload u(info_of(format));
    for (uint32_t seed = 1; seed <= 3; ++seed)
      u.push_and_check(memfd_frame(u.info, seed), seed);
    fail_unless_equals_uint64(stat(u.up, "imports"), 3);
    fail_unless_equals_uint64(stat(u.up, "declines"), 0);
    fail_unless_equals_uint64(stat(u.up, "bytes-copied"), 0);
  }
}
GST_END_TEST;

// RGB (24-bit) has no dma-buf import on llvmpipe: declined, copied, counted,
// and still exact.
GST_START_TEST(test_round_trip_memfd_rgb_declined) {
  Upload u(info_of(GST_VIDEO_FORMAT_RGB));
  for (uint32_t seed = 1; seed <= 3; ++seed)
    u.push_and_check(memfd_frame(u.info, seed), seed);
  fail_unless_equals_uint64(stat(u.up, "uploads"), 3);
  fail_unless_equals_uint64(stat(u.up, "declines"), 3);
  fail_unless_equals_uint64(stat(u.up, "bytes-copied"), 3 * u.info.size);
}
GST_END_TEST;

// A failed import is warned about once: the frames after it are declined
// because the import switched itself off, not because the display has no
// dma-buf import (which it has).
GST_START_TEST(test_failed_import_warned_once) {
  Upload u(info_of(GST_VIDEO_FORMAT_RGB));
  GstBus *bus = attach_bus(u.h);
  for (uint32_t seed = 1; seed <= 3; ++seed)
    u.push_and_check(memfd_frame(u.info, seed), seed);
  fail_unless_equals_uint64(stat(u.up, "declines"), 3);
  const std::vector<std::string> warnings = pop_warnings(bus);
  fail_unless_equals_int(warnings.size(), 1);
  fail_unless_equals_string(warnings[0].c_str(),
                            "Copying frames into textures instead of importing them: the EGL "
                            "import failed");
  release_bus(bus);
}
GST_END_TEST;

// Counts output GstBuffers efupload has not sent before: a shell coming back
// from its pool carries the mark, a newly made GstBuffer does not.
static GstPadProbeReturn count_new_buffers(GstPad *, GstPadProbeInfo *info, gpointer data) {
  static GQuark mark = g_quark_from_static_string("ef-test-seen");
  GstMiniObject *buffer = GST_MINI_OBJECT(GST_PAD_PROBE_INFO_BUFFER(info));
  if (!gst_mini_object_get_qdata(buffer, mark)) {
    gst_mini_object_set_qdata(buffer, mark, GINT_TO_POINTER(1), nullptr);
    ++*static_cast<int *>(data);
  }
  return GST_PAD_PROBE_OK;
}

// A ring of 4 memfd buffers over 300 frames: 4 misses, then only hits, with
// the slot's current content in every output, and no GstBuffer made once
// the first frames have filled the shell pool.
static void steady_state(bool rewrap) {
  Upload u(info_of(GST_VIDEO_FORMAT_NV12, 320, 240));
  int new_buffers = 0;
  GstPad *src = gst_element_get_static_pad(u.up, "src");
  gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, count_new_buffers, &new_buffers, nullptr);
  gst_object_unref(src);
  int new_after_warm_up = -1;
  int fds[4];
  for (int &fd : fds)
    fd = make_memfd("ef-ring", u.info.size);
  GstBuffer *stable[4];
  for (int i = 0; i < 4; ++i)
    stable[i] = fd_frame(fds[i], u.info, 0);
  for (uint32_t frame = 0; frame < 300; ++frame) {
    int slot = int(frame % 4);
    GstBuffer *in;
    if (rewrap) {
      // A NEW GstMemory around a dup of the slot's fd, as appsrc apps do.
      in = fd_frame(dup(fds[slot]), u.info, frame + 1);
      GstMemory *mem = gst_buffer_peek_memory(in, 0);
      GST_MINI_OBJECT_FLAG_UNSET(mem, GST_FD_MEMORY_FLAG_DONT_CLOSE);
    } else {
      // The producer rewrites the slot's bytes, then sends the same buffer.
      write_frame_to_fd(fds[slot], u.info, frame + 1);
      in = gst_buffer_ref(stable[slot]);
    }
    u.push_and_check(in, frame + 1);
    if (frame == 20)
      new_after_warm_up = new_buffers;
  }
  fail_unless(new_buffers >= 1);
  fail_unless_equals_int(new_buffers, new_after_warm_up);
  fail_unless_equals_uint64(stat(u.up, "misses"), 4);
  fail_unless_equals_uint64(stat(u.up, "hits"), 296);
  fail_unless_equals_uint64(stat(u.up, "imports"), 4);
  fail_unless_equals_uint64(stat(u.up, "declines"), 0);
  fail_unless_equals_uint64(stat(u.up, "uploads"), 0);
  for (int i = 0; i < 4; ++i) {
    gst_buffer_unref(stable[i]);
    close(fds[i]);
  }
}

GST_START_TEST(test_steady_state_stable_memory) {
  steady_state(false);
}
GST_END_TEST;

GST_START_TEST(test_steady_state_rewrapped_memory) {
  steady_state(true);
}
GST_END_TEST;

// Close a memfd, create another that takes the same fd number with other
// content: the output must show the new content, never the old import.
GST_START_TEST(test_fd_number_reuse_no_stale_image) {
  Upload u(info_of(GST_VIDEO_FORMAT_RGBA));
  int fd = make_memfd("ef-first", u.info.size);
  u.push_and_check(fd_frame(fd, u.info, 11), 11);
  close(fd);
  int again = make_memfd("ef-second", u.info.size);
  fail_unless_equals_int(again, fd);
  u.push_and_check(fd_frame(again, u.info, 22), 22);
  fail_unless_equals_uint64(stat(u.up, "misses"), 2);
  fail_unless_equals_uint64(stat(u.up, "hits"), 0);
  close(again);
}
GST_END_TEST;

// The same memfd under a new layout (a pool reconfigured to other strides,
// then other caps): re-imported, and correct pixels each time.
GST_START_TEST(test_reconfigured_pool_reimports) {
  Upload u(info_of(GST_VIDEO_FORMAT_NV12, 64, 48));
  GstVideoInfo padded = padded_info(GST_VIDEO_FORMAT_NV12, 64, 48, 64, 16);
  int fd = make_memfd("ef-pool", padded.size);
  u.push_and_check(fd_frame(fd, u.info, 1), 1);
  u.push_and_check(fd_frame(fd, padded, 2), 2);  // same fd, padded strides
  fail_unless_equals_uint64(stat(u.up, "misses"), 2);
  u.push_and_check(fd_frame(fd, padded, 3), 3);  // same layout again: a hit
  fail_unless_equals_uint64(stat(u.up, "hits"), 1);

  GstVideoInfo bigger = info_of(GST_VIDEO_FORMAT_NV12, 96, 64);
  gst_harness_set_caps(u.h, caps_for(bigger, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(bigger));
  u.info = bigger;
  int fd2 = make_memfd("ef-pool-2", bigger.size);
  u.push_and_check(fd_frame(fd2, bigger, 4), 4);
  fail_unless_equals_uint64(stat(u.up, "misses"), 3);
  close(fd);
  close(fd2);
}
GST_END_TEST;

// NV12 in two memfds (two memories): the UV offset in GstVideoMeta is
// logical, past the Y memory, not an offset inside the UV fd.
GST_START_TEST(test_nv12_two_memories) {
  Upload u(info_of(GST_VIDEO_FORMAT_NV12, 64, 48));
  gsize y_size = u.info.offset[1];
  gsize uv_size = u.info.size - y_size;
  for (uint32_t seed = 1; seed <= 2; ++seed) {
    GstBuffer *whole = system_frame(u.info, seed);
    int y = make_memfd("ef-y", y_size), uv = make_memfd("ef-uv", uv_size);
    GstMapInfo map;
    gst_buffer_map(whole, &map, GST_MAP_READ);
    fail_unless(pwrite(y, map.data, y_size, 0) == ssize_t(y_size));
    fail_unless(pwrite(uv, map.data + y_size, uv_size, 0) == ssize_t(uv_size));
    gst_buffer_unmap(whole, &map);
    gst_buffer_unref(whole);
    GstAllocator *alloc = gst_fd_allocator_new();
    GstBuffer *in = gst_buffer_new();
    gst_buffer_append_memory(in, gst_fd_allocator_alloc(alloc, y, y_size, GST_FD_MEMORY_FLAG_NONE));
    gst_buffer_append_memory(in,
                             gst_fd_allocator_alloc(alloc, uv, uv_size, GST_FD_MEMORY_FLAG_NONE));
    gst_object_unref(alloc);
    gst_buffer_add_video_meta_full(in, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_NV12, 64, 48, 2,
                                   u.info.offset, u.info.stride);
    u.push_and_check(in, seed);
  }
  fail_unless_equals_uint64(stat(u.up, "imports"), 2);
  fail_unless_equals_uint64(stat(u.up, "declines"), 0);
}
GST_END_TEST;

// The GStreamer 1.22.0 v4l2 bug: a live GstMemory whose fd was closed and its
// number taken by other bytes. The cached import of the old bytes must be
// refused (counted), and the frame shows what the fd holds now.
GST_START_TEST(test_fd_closed_under_live_memory_refused) {
  Upload u(info_of(GST_VIDEO_FORMAT_RGBA));
  int fd = make_memfd("ef-v4l2-a", u.info.size);
  GstBuffer *held = fd_frame(fd, u.info, 31);  // DONT_CLOSE: we own the fd
  u.push_and_check(gst_buffer_ref(held), 31);
  close(fd);
  int reused = make_memfd("ef-v4l2-b", u.info.size);
  fail_unless_equals_int(reused, fd);
  write_frame_to_fd(reused, u.info, 32);
  u.push_and_check(gst_buffer_ref(held), 32);
  fail_unless_equals_uint64(stat(u.up, "refusals"), 1);
  fail_unless_equals_uint64(stat(u.up, "hits"), 0);
  fail_unless_equals_uint64(stat(u.up, "uploads"), 1);
  gst_buffer_unref(held);
  close(reused);
}
GST_END_TEST;

// The import path: a memfd shorter than its memory claims (4096 of NV12
// 64x48's 4608 bytes has an identity, and was imported: a picture of other
// bytes) is refused by name before the import, by the max-errors rule; the
// good frames around it are imported and exact.
GST_START_TEST(test_short_fds_refused) {
  Upload u(info_of(GST_VIDEO_FORMAT_NV12));
  expect_short_fds_refused(
      u.h, u.up, u.info, [&](uint32_t seed) { u.push_and_check(memfd_frame(u.info, seed), seed); });
  fail_unless_equals_uint64(stat(u.up, "imports"), 4);
  fail_unless_equals_uint64(stat(u.up, "uploads"), 0);
}
GST_END_TEST;

// A cache smaller than the ring: every frame misses and evicts, and every
// frame is still right.
GST_START_TEST(test_capacity_smaller_than_ring) {
  Upload u(info_of(GST_VIDEO_FORMAT_NV12));
  g_object_set(u.up, "cache-capacity", 2u, nullptr);
  int fds[4];
  for (int &fd : fds)
    fd = make_memfd("ef-small", u.info.size);
  for (uint32_t frame = 0; frame < 12; ++frame)
    u.push_and_check(fd_frame(fds[frame % 4], u.info, frame + 1), frame + 1);
  fail_unless_equals_uint64(stat(u.up, "misses"), 12);
  fail_unless_equals_uint64(stat(u.up, "evictions"), 10);
  for (int fd : fds)
    close(fd);
}
GST_END_TEST;

// The imported textures feed stock GstGL elements in the same GL context
// (shared through GstContext): glcolorconvert turns a flat NV12 grey into
// the matching RGBA grey.
GST_START_TEST(test_feeds_glcolorconvert) {
  GstVideoInfo nv12 = info_of(GST_VIDEO_FORMAT_NV12);
  GstVideoInfo rgba = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = gst_harness_new_parse(
      "efupload name=up ! glcolorconvert ! video/x-raw(memory:GLMemory),format=RGBA ! gldownload");
  gst_harness_set_caps(h, caps_for(nv12, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(rgba));
  int fd = make_memfd("ef-grey", nv12.size);
  std::vector<guint8> bytes(nv12.size, 128);
  std::fill_n(bytes.begin(), nv12.offset[1], 126);  // Y = 126, U = V = 128
  fail_unless(pwrite(fd, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size()));
  GstBuffer *in = gst_buffer_new();
  GstAllocator *alloc = gst_fd_allocator_new();
  gst_buffer_append_memory(in,
                           gst_fd_allocator_alloc(alloc, fd, nv12.size, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  GstVideoFrame frame;
  fail_unless(gst_video_frame_map(&frame, &rgba, out, GST_MAP_READ));
  const guint8 *px = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
  // BT.601 limited range: (126 - 16) * 255 / 219 = 128.
  for (int c = 0; c < 3; ++c)
    fail_unless(std::abs(int(px[c]) - 128) <= 3, "channel %d is %d", c, px[c]);
  gst_video_frame_unmap(&frame);
  gst_buffer_unref(out);
  fail_unless_equals_uint64(stat(harness_element(h, "up"), "imports"), 1);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Odd sizes, where chroma is ceil(w/2) x ceil(h/2), the luma plane's rows
// are fewer than the caps' offsets count and rows are no multiple of 4
// bytes: every byte that shows a pixel is exact, from memfds (imported) and
// from system memory (uploaded).
GST_START_TEST(test_odd_sizes_exact) {
  constexpr std::pair<guint, guint> kSizes[] = {{7, 5}, {33, 17}, {1, 1}, {4095, 1}, {3, 3}};
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420})
    for (auto [w, h] : kSizes)
      for (bool memfd : {true, false}) {
        Upload u(info_of(format, w, h));
        for (uint32_t seed = 1; seed <= 2; ++seed)
          u.push_and_check(memfd ? memfd_frame(u.info, seed) : system_frame(u.info, seed), seed);
      }
}
GST_END_TEST;

// Output frames carry the identity of the memfd they show.
GST_START_TEST(test_output_carries_identity) {
  GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA);
  GstHarness *h = gst_harness_new_parse("efupload");
  gst_harness_set_caps(h, caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF),
                       caps_for(info, GST_CAPS_FEATURE_MEMORY_GL_MEMORY));
  GstBuffer *in = memfd_frame(info, 5);
  GstEfIdentity expected;
  fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(in, 0), &expected, nullptr));
  fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  GstEfIdentityMeta *meta = gst_buffer_get_ef_identity_meta(out);
  fail_unless(meta != nullptr);
  fail_unless_equals_int(meta->n_identities, 1);
  fail_unless_equals_uint64(meta->identities[0].id, expected.id);
  fail_unless_equals_int(meta->identities[0].kind, GST_EF_IDENTITY_KIND_DMA_BUF);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// The three metas of one output frame.
struct OutputMetas {
  GstVideoMeta *video = nullptr;
  GstParentBufferMeta *parent = nullptr;
  GstEfIdentityMeta *identity = nullptr;
  bool operator==(const OutputMetas &) const = default;
};

// The metas on `out`, checked against the frame it shows: `in` (a memfd
// frame laid out as `info`), never an earlier frame's values; each pooled,
// so its shell keeps it for the next frame.
OutputMetas check_output_metas(GstBuffer *out, GstBuffer *in, const GstVideoInfo &info,
                               uint32_t frame) {
  OutputMetas m;
  m.video = gst_buffer_get_video_meta(out);
  m.parent = gst_buffer_get_parent_buffer_meta(out);
  m.identity = gst_buffer_get_ef_identity_meta(out);
  fail_unless(m.video && m.parent && m.identity, "frame %u lacks a meta", frame);
  fail_unless_equals_int(gst_buffer_get_n_meta(out, GST_VIDEO_META_API_TYPE), 1);
  fail_unless_equals_int(gst_buffer_get_n_meta(out, GST_PARENT_BUFFER_META_API_TYPE), 1);
  fail_unless_equals_int(gst_buffer_get_n_meta(out, GST_EF_IDENTITY_META_API_TYPE), 1);
  for (GstMeta *meta : {&m.video->meta, &m.parent->parent, &m.identity->meta})
    fail_unless(GST_META_FLAG_IS_SET(meta, GST_META_FLAG_POOLED), "frame %u: %s not pooled", frame,
                g_type_name(meta->info->api));
  fail_unless_equals_int(m.video->format, GST_VIDEO_INFO_FORMAT(&info));
  fail_unless_equals_int(m.video->width, GST_VIDEO_INFO_WIDTH(&info));
  fail_unless_equals_int(m.video->height, GST_VIDEO_INFO_HEIGHT(&info));
  fail_unless_equals_int(m.video->n_planes, GST_VIDEO_INFO_N_PLANES(&info));
  for (guint p = 0; p < m.video->n_planes; ++p)
    fail_unless(m.video->stride[p] >=
                    GST_VIDEO_INFO_COMP_WIDTH(&info, p) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, p),
                "frame %u plane %u: stride %d for width %d", frame, p, m.video->stride[p],
                GST_VIDEO_INFO_WIDTH(&info));
  fail_unless(m.parent->buffer == in, "frame %u holds another input", frame);
  GstEfIdentity expected;
  fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(in, 0), &expected, nullptr));
  fail_unless_equals_int(m.identity->n_identities, 1);
  fail_unless(m.identity->identities[0].id == expected.id, "frame %u: a stale identity", frame);
  return m;
}

// A ring of 4 memfd frames of `info` through efupload to GL memory, `n`
// frames: every output's metas right for its frame, a recycled shell's
// metas the very objects it carried before (none added again), and each
// input given back (refcount 1, ours) once its output is dropped.
void run_pooled(GstHarness *h, const GstVideoInfo &info, uint32_t n) {
  gst_harness_set_caps(h, caps_for(info, GST_CAPS_FEATURE_MEMORY_DMABUF),
                       caps_for(info, GST_CAPS_FEATURE_MEMORY_GL_MEMORY));
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = memfd_frame(info, i);
  std::vector<std::pair<GstBuffer *, OutputMetas>> seen;
  int recycled = 0;
  for (uint32_t f = 0; f < n; ++f) {
    GstBuffer *in = ring[f % 4];
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull(h);
    const OutputMetas metas = check_output_metas(out, in, info, f);
    auto shell = std::find_if(seen.begin(), seen.end(), [&](auto &s) { return s.first == out; });
    if (shell == seen.end()) {
      seen.emplace_back(out, metas);
    } else {
      fail_unless(shell->second == metas, "frame %u: a recycled output got new metas", f);
      ++recycled;
    }
    gst_buffer_unref(out);
    fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(in), 1);
  }
  fail_unless(recycled >= int(n) - 4, "%d of %u outputs recycled", recycled, n);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
}

}  // namespace

// Steady state: the output shells come back from their pool with their
// metas, which each new frame rewrites, across new caps too.
GST_START_TEST(test_output_metas_pooled) {
  GstHarness *h = gst_harness_new_parse("efupload");
  run_pooled(h, info_of(GST_VIDEO_FORMAT_NV12, 64, 48), 24);
  run_pooled(h, info_of(GST_VIDEO_FORMAT_RGBA, 30, 17), 12);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Uploaded frames (system memory in) come in textures of a GL pool, whose
// recycled buffers keep the pooled identity meta: each frame's own.
GST_START_TEST(test_uploaded_outputs_carry_their_identity) {
  const GstVideoInfo info = info_of(GST_VIDEO_FORMAT_RGBA, 30, 17);
  GstHarness *h = gst_harness_new_parse("efupload name=up");
  gst_harness_set_caps(h, caps_for(info), caps_for(info, GST_CAPS_FEATURE_MEMORY_GL_MEMORY));
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = system_frame(info, i);
  for (uint32_t f = 0; f < 12; ++f) {
    GstBuffer *in = ring[f % 4];
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(in)), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull(h);
    GstEfIdentity expected;
    fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(in, 0), &expected, nullptr));
    GstEfIdentityMeta *meta = gst_buffer_get_ef_identity_meta(out);
    fail_unless(meta && meta->n_identities == 1, "frame %u", f);
    fail_unless(meta->identities[0].id == expected.id, "frame %u: a stale identity", f);
    fail_unless_equals_int(gst_buffer_get_n_meta(out, GST_EF_IDENTITY_META_API_TYPE), 1);
    gst_buffer_unref(out);
  }
  fail_unless_equals_uint64(stat(harness_element(h, "up"), "uploads"), 12);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *zerocopy_suite() {
  Suite *s = suite_create("efupload_zerocopy");
  TCase *tc = tcase_create("import");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_round_trip_memfd_imported);
  tcase_add_test(tc, test_round_trip_memfd_rgb_declined);
  tcase_add_test(tc, test_failed_import_warned_once);
  tcase_add_test(tc, test_steady_state_stable_memory);
  tcase_add_test(tc, test_steady_state_rewrapped_memory);
  tcase_add_test(tc, test_fd_number_reuse_no_stale_image);
  tcase_add_test(tc, test_reconfigured_pool_reimports);
  tcase_add_test(tc, test_nv12_two_memories);
  tcase_add_test(tc, test_odd_sizes_exact);
  tcase_add_test(tc, test_output_carries_identity);
  tcase_add_test(tc, test_output_metas_pooled);
  tcase_add_test(tc, test_uploaded_outputs_carry_their_identity);
  tcase_add_test(tc, test_fd_closed_under_live_memory_refused);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_capacity_smaller_than_ring);
  tcase_add_test(tc, test_feeds_glcolorconvert);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, zerocopy_suite, Needs::EglDmabufImport);
}
