// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert as an element: negotiation, letterbox geometry and its
// properties, the transform meta, crops, output memory, statistics and bad
// input. Pixel accuracy against GstVideoConverter is tested per backend in
// test_cpu_converter.cpp and test_gl_converter.cpp.
#include <gst/allocators/allocators.h>
#include <gst/app/app.h>
#include <gst/check/gstcheck.h>
#include <gst/ef/gstef.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "frames.hpp"
#include "harness.hpp"
#include "odd_margins.hpp"
#include "gap_frames.hpp"
#include "short_fds.hpp"

using namespace ef::test;

namespace {

GstVideoInfo info_of(GstVideoFormat format, guint w, guint h) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, w, h);
  return info;
}

GstHarness *convert_harness(const char *props, const GstVideoInfo &in, const GstVideoInfo &out) {
  std::string launch = std::string("efconvert name=conv backend=cpu ") + props;
  GstHarness *h = gst_harness_new_parse(launch.c_str());
  gst_harness_set_caps(h, caps_for(in), caps_for(out));
  return h;
}

const guint8 *pixel(GstVideoFrame *f, int x, int y) {
  return static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(f, 0)) +
         y * GST_VIDEO_FRAME_PLANE_STRIDE(f, 0) + x * GST_VIDEO_FRAME_COMP_PSTRIDE(f, 0);
}

// Pushes `frames` frames of a ring of 4 RGBA memfd frames (frame i carries
// pattern i) through a 1:1 efconvert, each checked exactly.
void push_ring(GstHarness *h, GstBuffer *const (&ring)[4], const GstVideoInfo &in, int frames) {
  for (int f = 0; f < frames; ++f) {
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(ring[f % 4])), GST_FLOW_OK);
    GstBuffer *out = gst_harness_pull(h);
    std::string bad = check_buffer(out, in, uint32_t(f % 4));  // RGBA 1:1 is exact
    fail_unless(bad.empty(), "frame %d: %s", f, bad.c_str());
    gst_buffer_unref(out);
  }
}

}  // namespace

// 1920x1080 into 640x640: content 640x360 at y = 140, borders exactly the
// fill colour, content the source colour; properties and meta agree.
GST_START_TEST(test_letterbox_geometry) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 1920, 1080);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 640, 640);
  GstHarness *h = convert_harness("fill-color=0xff102030", in, out);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xc08040ff)), GST_FLOW_OK);
  GstBuffer *buf = gst_harness_pull(h);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &out, buf, GST_MAP_READ));
  for (int y = 0; y < 640; ++y) {
    const bool border = y < 140 || y >= 500;
    const guint8 *p = pixel(&f, 320, y);
    if (border)
      fail_unless(p[0] == 0x10 && p[1] == 0x20 && p[2] == 0x30, "row %d: %d,%d,%d", y, p[0], p[1],
                  p[2]);
    else
      fail_unless(p[0] == 0xc0 && p[1] == 0x80 && p[2] == 0x40, "row %d: %d,%d,%d", y, p[0], p[1],
                  p[2]);
  }
  gst_video_frame_unmap(&f);

  GstEfTransformMeta *meta = gst_buffer_get_ef_transform_meta(buf);
  fail_unless(meta != nullptr);
  fail_unless_equals_int(meta->content.x, 0);
  fail_unless_equals_int(meta->content.y, 140);
  fail_unless_equals_int(meta->content.w, 640);
  fail_unless_equals_int(meta->content.h, 360);
  gdouble ix, iy;
  gst_ef_transform_meta_map_to_input(meta, 320, 320, &ix, &iy);  // the centre
  fail_unless(std::fabs(ix - 960) < 1e-6 && std::fabs(iy - 540) < 1e-6);
  gst_ef_transform_meta_map_to_input(meta, 0, 140, &ix, &iy);  // content's top-left
  fail_unless(std::fabs(ix) < 1e-6 && std::fabs(iy) < 1e-6);
  gst_ef_transform_meta_map_to_input(meta, 640, 500, &ix, &iy);  // bottom-right
  fail_unless(std::fabs(ix - 1920) < 1e-6 && std::fabs(iy - 1080) < 1e-6);

  GstElement *conv = harness_element(h, "conv");
  gdouble scale;
  gint lx, ly;
  g_object_get(conv, "letterbox-scale", &scale, "letterbox-x", &lx, "letterbox-y", &ly, nullptr);
  fail_unless(std::fabs(scale - 1.0 / 3.0) < 1e-9, "scale %f", scale);
  fail_unless_equals_int(lx, 0);
  fail_unless_equals_int(ly, 140);
  gchar *backend = nullptr;
  g_object_get(conv, "backend-in-use", &backend, nullptr);
  fail_unless_equals_string(backend, "cpu");
  g_free(backend);
  gst_buffer_unref(buf);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Odd margins (odd_margins.hpp): the picture centred with the odd pixel right
// or below, every border pixel the fill and every picture pixel the frame's
// colour, exactly; meta and properties agree.
GST_START_TEST(test_odd_margin_placement) {
  check_odd_margin("cpu", kOddMargins[__i__], 0);
}
GST_END_TEST;

// Without letterbox the picture is stretched to the whole output.
GST_START_TEST(test_stretch) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 32);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 40, 40);
  GstHarness *h = convert_harness("letterbox=false", in, out);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0x11223344)), GST_FLOW_OK);
  GstBuffer *buf = gst_harness_pull(h);
  GstEfTransformMeta *meta = gst_buffer_get_ef_transform_meta(buf);
  fail_unless_equals_int(meta->content.w, 40);
  fail_unless_equals_int(meta->content.h, 40);
  fail_unless(std::fabs(meta->scale_x - 64.0 / 40) < 1e-9);
  fail_unless(std::fabs(meta->scale_y - 32.0 / 40) < 1e-9);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &out, buf, GST_MAP_READ));
  const guint8 *corner = pixel(&f, 0, 0);
  fail_unless(corner[0] == 0x11 && corner[1] == 0x22 && corner[2] == 0x33);
  gst_video_frame_unmap(&f);
  gst_buffer_unref(buf);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Crop meta on the input, then the crop property inside it.
GST_START_TEST(test_crop_meta_and_property) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GstHarness *h = convert_harness("crop=\"<4, 2, 16, 16>\"", in, out);
  GstBuffer *buf = flat_rgba(in, 0x000000ff);
  // Mark the cropped region: the 16x16 block at (10 + 4, 20 + 2).
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  for (int y = 22; y < 38; ++y)
    for (int x = 14; x < 30; ++x)
      map.data[(y * 64 + x) * 4] = 200;
  gst_buffer_unmap(buf, &map);
  GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta(buf);
  crop->x = 10;
  crop->y = 20;
  crop->width = 40;
  crop->height = 40;
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_OK);
  GstBuffer *outbuf = gst_harness_pull(h);
  GstVideoFrame f;
  fail_unless(gst_video_frame_map(&f, &out, outbuf, GST_MAP_READ));
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      fail_unless_equals_int(pixel(&f, x, y)[0], 200);
  gst_video_frame_unmap(&f);
  GstEfTransformMeta *meta = gst_buffer_get_ef_transform_meta(outbuf);
  fail_unless_equals_int(meta->crop.x, 14);
  fail_unless_equals_int(meta->crop.y, 22);
  gst_buffer_unref(outbuf);
  gst_harness_teardown(h);
}
GST_END_TEST;

// A quarter turn swaps the default output size and the meta maps back.
GST_START_TEST(test_rotation_negotiates_and_maps) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 32);
  GstHarness *h = gst_harness_new_parse("efconvert backend=cpu video-direction=90r");
  gst_harness_set_src_caps(h, caps_for(in));
  GstBuffer *buf = flat_rgba(in, 0x808080ff);
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  GstCaps *caps = gst_pad_get_current_caps(h->sinkpad);
  GstVideoInfo out_info;
  fail_unless(gst_video_info_from_caps(&out_info, caps));
  fail_unless_equals_int(out_info.width, 32);
  fail_unless_equals_int(out_info.height, 64);
  GstEfTransformMeta *meta = gst_buffer_get_ef_transform_meta(out);
  gdouble ix, iy;
  gst_ef_transform_meta_map_to_input(meta, 32, 0, &ix, &iy);  // top-right <- top-left
  fail_unless(std::fabs(ix) < 1e-6 && std::fabs(iy) < 1e-6, "%f %f", ix, iy);
  gst_caps_unref(caps);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}
GST_END_TEST;

// Output frames come from efconvert's own pool of memfd-backed memory and
// carry their identity; the pool recycles them.
GST_START_TEST(test_output_is_fd_backed_and_identified) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBP, 32, 32);
  GstHarness *h = convert_harness("", in, out);
  for (uint32_t i = 0; i < 4; ++i) {
    fail_unless_equals_int(gst_harness_push(h, system_frame(in, i)), GST_FLOW_OK);
    GstBuffer *buf = gst_harness_pull(h);
    GstMemory *mem = gst_buffer_peek_memory(buf, 0);
    fail_unless(gst_is_fd_memory(mem));
    GstEfIdentityMeta *id = gst_buffer_get_ef_identity_meta(buf);
    fail_unless(id != nullptr);
    fail_unless_equals_int(id->identities[0].kind, GST_EF_IDENTITY_KIND_DMA_BUF);
    gst_buffer_unref(buf);
  }
  gst_harness_teardown(h);
}
GST_END_TEST;

// A downstream pool of memfd buffers that is freed and reallocated while fd
// numbers are reused: every output frame is checked, none stale or blank.
GST_START_TEST(test_destination_recycling) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 32, 32);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGBA, 32, 32);
  for (int round = 0; round < 3; ++round) {
    GstHarness *h = gst_harness_new_parse("efconvert backend=cpu");
    GstAllocator *memfds = gst_ef_fd_allocator_new();
    offer_downstream_pool(h, memfds, 2);
    gst_object_unref(memfds);
    gst_harness_set_caps(h, caps_for(in), caps_for(out));
    for (guint32 i = 1; i <= 5; ++i) {
      guint32 colour = (i * 0x1f3d5b00u + guint32(round) * 0x01010100u) | 0xff;
      fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, colour)), GST_FLOW_OK);
      GstBuffer *buf = gst_harness_pull(h);
      fail_unless(gst_is_fd_memory(gst_buffer_peek_memory(buf, 0)));
      GstVideoFrame f;
      fail_unless(gst_video_frame_map(&f, &out, buf, GST_MAP_READ));
      for (int y = 0; y < 32; y += 7)
        for (int x = 0; x < 32; x += 5) {
          const guint8 *p = pixel(&f, x, y);
          fail_unless(p[0] == guint8(colour >> 24) && p[1] == guint8(colour >> 16) &&
                          p[2] == guint8(colour >> 8),
                      "round %d frame %u at %d,%d", round, i, x, y);
        }
      gst_video_frame_unmap(&f);
      gst_buffer_unref(buf);
    }
    gst_harness_teardown(h);  // frees the pool: its fd numbers go back
  }
}
GST_END_TEST;

// The CPU backend maps a ring of memfd inputs once per buffer, not per
// frame: 4 misses, then hits, every frame right.
GST_START_TEST(test_cpu_maps_ring_once) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 32, 32);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(in));
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = memfd_frame(in, i);
  push_ring(h, ring, in, 20);
  GstElement *conv = harness_element(h, "conv");
  fail_unless_equals_uint64(stat(conv, "src-misses"), 4);
  fail_unless_equals_uint64(stat(conv, "src-hits"), 16);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

// cache-capacity applies at once, as in efupload and efvkbridge: lowered
// while streaming, the cached mappings beyond it go now, not at the next
// caps, and a ring larger than the cache misses every frame.
GST_START_TEST(test_cache_capacity_applies_at_once) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 32, 32);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(in));
  GstElement *conv = harness_element(h, "conv");
  GstBuffer *ring[4];
  for (uint32_t i = 0; i < 4; ++i)
    ring[i] = memfd_frame(in, i);
  push_ring(h, ring, in, 8);
  fail_unless_equals_uint64(stat(conv, "src-misses"), 4);
  fail_unless_equals_uint64(stat(conv, "src-hits"), 4);
  g_object_set(conv, "cache-capacity", 1u, nullptr);
  guint capacity = 0;
  g_object_get(conv, "cache-capacity", &capacity, nullptr);
  fail_unless_equals_int(capacity, 1);
  push_ring(h, ring, in, 8);
  fail_unless_equals_uint64(stat(conv, "src-misses"), 12);
  fail_unless_equals_uint64(stat(conv, "src-hits"), 4);
  for (GstBuffer *b : ring)
    gst_buffer_unref(b);
  gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_stats_on_eos) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GstHarness *h = convert_harness("", in, in);
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xffffffff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
  bool found = false;
  while (GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
    if (gst_message_has_name(msg, "efconvert-stats")) {
      guint64 frames = 0;
      fail_unless(gst_structure_get_uint64(gst_message_get_structure(msg), "frames", &frames));
      fail_unless_equals_uint64(frames, 1);
      found = true;
    }
    gst_message_unref(msg);
  }
  fail_unless(found);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// How the number of an input fd the application closed is used again when
// the frame is pushed.
enum class Reuse {
  Free,           // nobody: the fd is dead
  OutputPool,     // the element's own output pool, made at the first frame
  Smaller,        // a file too short for the luma plane
  BetweenPlanes,  // a file holding the luma plane but not the chroma
  AfterUse,       // a large file, after the frame was converted once
};

// NV12 filled with one colour (Y, U, V), in system memory.
GstBuffer *flat_nv12(const GstVideoInfo &info, guint8 y, guint8 u, guint8 v) {
  GstBuffer *buf = gst_buffer_new_allocate(nullptr, info.size, nullptr);
  GstVideoFrame f;
  GstVideoInfo copy = info;
  gst_video_frame_map(&f, &copy, buf, GST_MAP_WRITE);
  for (int r = 0; r < GST_VIDEO_INFO_HEIGHT(&info); ++r)
    memset(static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
               r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0),
           y, GST_VIDEO_INFO_WIDTH(&info));
  for (int r = 0; r < GST_VIDEO_INFO_COMP_HEIGHT(&info, 1); ++r) {
    auto *row = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 1)) +
                r * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 1);
    for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, 1); ++x) {
      row[2 * x] = u;
      row[2 * x + 1] = v;
    }
  }
  gst_video_frame_unmap(&f);
  return buf;
}

// Puts a new file of `size` bytes of 0x55 under fd number `fd`.
void reuse_number(int fd, gsize size) {
  int other = make_memfd("ef-test-reuse", size);
  fail_unless(other >= 0);
  std::string junk(size, '\x55');
  fail_unless(pwrite(other, junk.data(), size, 0) == ssize_t(size));
  if (other != fd) {
    fail_unless(dup2(other, fd) == fd);
    close(other);
  }
}

// The text of the first ERROR or WARNING on the bus, "" if none.
std::string pop_problem(GstBus *bus) {
  while (GstMessage *msg = gst_bus_pop(bus)) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR)
      gst_message_parse_error(msg, &error, &debug);
    else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING)
      gst_message_parse_warning(msg, &error, &debug);
    gst_message_unref(msg);
    if (error) {
      std::string text = error->message;
      g_error_free(error);
      g_free(debug);
      return text;
    }
  }
  return "";
}

}  // namespace

// An input memory (GstFdAllocator, DONT_CLOSE) whose fd the application
// closed before the push, its number free or already naming another file of
// any size, is never read as the frame: an error or warning with a clear
// text, no crash, and the next good frame is converted right. Every reuse
// runs several times, each in its own child.
GST_START_TEST(test_closed_input_fd) {
  const auto reuse = Reuse(__i__ % 5);
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 320, 240);
  // The output pool's memfds (180x180 RGB, 97,200 bytes) hold the luma
  // plane (76,800 bytes) but not the chroma (to 115,200).
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 180, 180);
  GstHarness *h = convert_harness("letterbox=false", in, out);
  GstBus *bus = attach_bus(h);
  auto push_good = [&] {
    fail_unless_equals_int(gst_harness_push(h, flat_nv12(in, 81, 90, 240)), GST_FLOW_OK);  // red
    GstBuffer *buf = gst_harness_pull(h);
    GstVideoFrame f;
    fail_unless(gst_video_frame_map(&f, &out, buf, GST_MAP_READ));
    for (int y = 0; y < 180; y += 13)
      for (int x = 0; x < 180; x += 11) {
        const guint8 *p = pixel(&f, x, y);
        fail_unless(p[0] >= 250 && p[1] <= 5 && p[2] <= 5, "%d,%d: %d,%d,%d", x, y, p[0], p[1],
                    p[2]);
      }
    gst_video_frame_unmap(&f);
    gst_buffer_unref(buf);
  };
  if (reuse != Reuse::OutputPool)
    push_good();  // the output pool exists before the fd goes
  const int fd = make_memfd("ef-test-closed", in.size);
  GstBuffer *frame = fd_frame(fd, in, 7);
  if (reuse == Reuse::AfterUse) {
    fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
    gst_buffer_unref(gst_harness_pull(h));
  }
  close(fd);
  if (reuse == Reuse::Smaller)
    reuse_number(fd, 4096);
  else if (reuse == Reuse::BetweenPlanes)
    reuse_number(fd, 96 * 1024);
  else if (reuse == Reuse::AfterUse)
    reuse_number(fd, 4 * in.size);
  gst_harness_push(h, frame);
  // Whatever the flow return, nothing was converted from the wrong bytes.
  while (GstBuffer *buf = gst_harness_try_pull(h)) {
    gst_buffer_unref(buf);
    fail("reuse %d: a frame came out of an fd that was closed", int(reuse));
  }
  const std::string problem = pop_problem(bus);
  fail_unless(problem.find("fd") != std::string::npos, "reuse %d: \"%s\"", int(reuse),
              problem.c_str());
  push_good();
  if (reuse != Reuse::Free && reuse != Reuse::OutputPool)
    close(fd);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// An input whose fd is shorter than its memory claims (short_fds.hpp: a
// truncated file) is refused by name: an ERROR naming the plane past the
// cut and its fd, and no frame out. Never read past the fd's end: each case
// runs in its own child, where a SIGBUS or SIGSEGV fails it.
GST_START_TEST(test_short_input_fd) {
  ShortFdFrame f = short_fd_frame(__i__);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 64, 64);
  GstHarness *h = convert_harness("", f.info, out);
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(gst_harness_push(h, f.buffer), GST_FLOW_ERROR);
  GstBuffer *got = gst_harness_try_pull(h);
  fail_unless(got == nullptr, "%s: a frame came out", f.what);
  const std::string e = pop_error(bus);
  const std::string plane = "plane " + std::to_string(f.plane), fd = "fd " + std::to_string(f.fd);
  fail_unless(e.find(plane) != std::string::npos && e.find(fd) != std::string::npos,
              "%s: \"%s\" names not %s and %s", f.what, e.c_str(), plane.c_str(), fd.c_str());
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// The rule every element shares (common/frame_fds), on the CPU backend:
// image and tensor outputs, both by the max-errors rule, later frames as a
// fresh element's.
GST_START_TEST(test_short_fds_refused) {
  expect_convert_short_fds_refused("backend=cpu", "video/x-raw,format=RGB,width=64,height=48");
  expect_convert_short_fds_refused(
      "backend=cpu",
      "other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:64:48:1");
}
GST_END_TEST;

// GAP buffers (empty, and a whole frame flagged GAP) go on as gap events in
// order with the frames, never a bad frame (the empty one was an ERROR that
// stopped the pipeline): images, tensors and tensors attached to the frame.
GST_START_TEST(test_gap_buffers) {
  const std::string tensor =
      "other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:64:48:1";
  expect_convert_gaps_forwarded("backend=cpu", "video/x-raw,format=RGB,width=32,height=24");
  expect_convert_gaps_forwarded("backend=cpu", tensor.c_str());
  expect_convert_gaps_forwarded("backend=cpu attach-tensor=\"" + tensor + "\"", nullptr);
}
GST_END_TEST;

// Frames whose fd is no buffer (/dev/null, a disk file holding a real frame,
// a pipe) are refused by name by the CPU backend's element, never mapped;
// the next memfd frame converts exactly.
GST_START_TEST(test_not_a_buffer_refused) {
  expect_convert_not_a_buffer_refused("backend=cpu");
}
GST_END_TEST;

static std::string push_expecting_error(const char *props, const GstVideoInfo &in, GstBuffer *buf) {
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 32, 32);
  GstHarness *h = convert_harness(props, in, out);
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_ERROR);
  std::string error = pop_error(bus);
  release_bus(bus);
  gst_harness_teardown(h);
  return error;
}

namespace {

// The crop efconvert reads back, as <x, y, w, h> text.
std::string crop_of(GstElement *conv) {
  GValue v = G_VALUE_INIT;
  g_value_init(&v, GST_TYPE_ARRAY);
  g_object_get_property(G_OBJECT(conv), "crop", &v);
  std::string s = "<";
  for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
    s += (i ? ", " : "") + std::to_string(g_value_get_int(gst_value_array_get_value(&v, i)));
  g_value_unset(&v);
  return s + ">";
}

// What setting `name` to `value` (gst-launch syntax) on a running element
// posts: the WARNING refusing it ("" when taken).
std::string set_refused(GstBus *bus, GstElement *element, const char *name, const char *value) {
  gst_util_set_object_arg(G_OBJECT(element), name, value);
  return pop_warning(bus);
}

}  // namespace

// A crop without pixels is no setting a frame could use: refused when set,
// naming why, and the crop keeps its value: while running a WARNING says
// so and frames convert as before; set before the start, the start fails.
GST_START_TEST(test_zero_size_crop) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstHarness *h = convert_harness("crop=\"<2, 2, 8, 8>\"", in, info_of(GST_VIDEO_FORMAT_RGB, 8, 8));
  GstBus *bus = attach_bus(h);
  GstElement *conv = harness_element(h, "conv");
  for (const char *bad : {"<0, 0, 0, 10>", "<-1, 0, 8, 8>", "<1, 2, 3>", "<0, 0, 2147483647, 8>"}) {
    const std::string said = set_refused(bus, conv, "crop", bad);
    fail_unless(said.find(std::string("crop=") + bad + " refused") != std::string::npos &&
                    said.find("crop keeps its value <2, 2, 8, 8>") != std::string::npos,
                "%s: \"%s\"", bad, said.c_str());
    fail_unless(crop_of(conv) == "<2, 2, 8, 8>", "%s", crop_of(conv).c_str());
  }
  fail_unless(set_refused(bus, conv, "crop", "<0, 0, 0, 10>").find("has no pixels") !=
              std::string::npos);
  fail_unless(set_refused(bus, conv, "crop", "<1, 2, 3>").find("crop=\"<160, 90, 960, 540>\"") !=
              std::string::npos);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0x204060ff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  release_bus(bus);
  gst_harness_teardown(h);
  GstElement *alone = gst_element_factory_make("efconvert", nullptr);
  gst_util_set_object_arg(G_OBJECT(alone), "crop", "<0, 0, 0, 10>");
  const std::string error = start_error(alone);
  fail_unless(error.find("crop=<0, 0, 0, 10> refused") != std::string::npos &&
                  error.find("has no pixels") != std::string::npos,
              "%s", error.c_str());
  gst_object_unref(alone);
}
GST_END_TEST;

// A crop outside the frame: refused at negotiation naming it (a setting,
// never counted as a bad frame: max-errors=-1 does not hide it), and, once
// caps are set, refused when set.
GST_START_TEST(test_crop_outside_frame) {
  GstHarness *h = gst_harness_new_parse(
      "efconvert name=conv backend=cpu max-errors=-1 "
      "crop=\"<60, 0, 16, 16>\"");
  expect_caps_refused(h, "video/x-raw, format=RGBA, width=64, height=64",
                      "video/x-raw, format=RGB, width=32, height=32",
                      "crop 16x16+60+0 lies outside the 64x64 frame");
  fail_unless_equals_uint64(stat(harness_element(h, "conv"), "dropped"), 0);
  gst_harness_teardown(h);

  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  h = convert_harness("", in, info_of(GST_VIDEO_FORMAT_RGB, 32, 32));
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  GstElement *conv = harness_element(h, "conv");
  GstBus *bus = attach_bus(h);
  const std::string said = set_refused(bus, conv, "crop", "<60, 0, 16, 16>");
  fail_unless(said.find("lies outside the 64x64 frame") != std::string::npos, "%s", said.c_str());
  fail_unless(crop_of(conv) == "<0, 0, 0, 0>", "%s", crop_of(conv).c_str());
  fail_if(set_refused(bus, conv, "crop", "<48, 0, 16, 16>").size(),
          "a crop inside the frame refused");
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// A crop that the frame's own crop meta moves out of the frame is found on
// that frame: an error naming it, not a bad frame (dropped stays 0 under
// max-errors=-1).
GST_START_TEST(test_crop_beyond_crop_meta) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstHarness *h = convert_harness("max-errors=-1 crop=\"<0, 0, 32, 32>\"", in,
                                  info_of(GST_VIDEO_FORMAT_RGB, 16, 16));
  GstBus *bus = attach_bus(h);
  GstBuffer *buf = flat_rgba(in, 0xff);
  GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta(buf);  // the crop starts here
  meta->x = meta->y = 40;
  meta->width = meta->height = 24;
  fail_unless_equals_int(gst_harness_push(h, buf), GST_FLOW_ERROR);
  const std::string error = pop_error(bus);
  fail_unless(error.find("crop 32x32+40+40 lies outside the 64x64 frame") != std::string::npos,
              "%s", error.c_str());
  fail_unless(error.find("not counted by max-errors") != std::string::npos, "%s", error.c_str());
  fail_unless_equals_uint64(stat(harness_element(h, "conv"), "dropped"), 0);
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

// video-direction=custom names no turn efconvert applies: refused when set
// (as videoflip does), the direction keeps its value, and the start fails
// naming it.
GST_START_TEST(test_video_direction_custom_refused) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  gst_util_set_object_arg(G_OBJECT(conv), "video-direction", "90r");
  gst_util_set_object_arg(G_OBJECT(conv), "video-direction", "custom");
  gint direction = -1;
  g_object_get(conv, "video-direction", &direction, nullptr);
  fail_unless_equals_int(direction, GST_VIDEO_ORIENTATION_90R);
  const std::string error = start_error(conv);
  fail_unless(
      error.find("video-direction=custom refused: custom names no turn") != std::string::npos,
      "\"%s\"", error.c_str());
  gst_object_unref(conv);
}
GST_END_TEST;

GST_START_TEST(test_buffer_smaller_than_caps) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_NV12, 64, 64);
  std::string e =
      push_expecting_error("", in, gst_buffer_new_allocate(nullptr, in.size / 2, nullptr));
  fail_unless(e.find("truncated") != std::string::npos, "%s", e.c_str());
}
GST_END_TEST;

// Impossible caps: a format efconvert cannot produce is refused at
// negotiation, not at run time.
GST_START_TEST(test_impossible_caps) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GstVideoInfo bad = info_of(GST_VIDEO_FORMAT_NV12, 16, 16);
  GstHarness *h = gst_harness_new_parse("efconvert backend=cpu");
  gst_harness_set_src_caps(h, caps_for(in));
  gst_harness_set_sink_caps(h, caps_for(bad));
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xff)), GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown(h);
}
GST_END_TEST;

namespace {

// `n_bad` truncated frames under max-errors, then a good frame that must
// come out right: a flat colour stays that colour, exactly.
void convert_max_errors(gint max_errors, int n_bad) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 64, 64);
  GstVideoInfo out = info_of(GST_VIDEO_FORMAT_RGB, 32, 32);
  GstHarness *h = convert_harness("", in, out);
  GstBus *bus = attach_bus(h);
  push_bad_frames(
      h, harness_element(h, "conv"), bus, max_errors, n_bad,
      [&] { return gst_buffer_new_allocate(nullptr, in.size / 2, nullptr); },
      "Invalid input frame: buffer is truncated");
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0x3c7aa5ff)), GST_FLOW_OK);
  GstBuffer *buf = gst_harness_try_pull(h);
  fail_unless(buf != nullptr, "the good frame after the bad ones did not come out");
  GstVideoFrame frame;
  fail_unless(gst_video_frame_map(&frame, &out, buf, GST_MAP_READ));
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) {
      const guint8 *p = pixel(&frame, x, y);
      fail_unless(p[0] == 0x3c && p[1] == 0x7a && p[2] == 0xa5, "(%d,%d) is %d,%d,%d", x, y, p[0],
                  p[1], p[2]);
    }
  gst_video_frame_unmap(&frame);
  gst_buffer_unref(buf);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}

}  // namespace

GST_START_TEST(test_max_errors_default) {
  convert_max_errors(0, 1);
}
GST_END_TEST;

GST_START_TEST(test_max_errors_two) {
  convert_max_errors(2, 3);
}
GST_END_TEST;

GST_START_TEST(test_max_errors_never) {
  convert_max_errors(-1, 6);
}
GST_END_TEST;

// CUDA memory is offered upstream only where the CUDA backend may run:
// NVDEC's decoders take CUDA memory wherever it is allowed, so with
// backend=cpu or gl they would hand over frames those backends refuse.
GST_START_TEST(test_cuda_memory_offered_by_backend) {
  for (const char *backend : {"cpu", "gl", "auto"}) {
    GstHarness *h =
        gst_harness_new_parse((std::string("efconvert name=conv backend=") + backend).c_str());
    gst_harness_set_sink_caps_str(h, "video/x-raw, format=RGB, width=64, height=64");
    GstPad *sink = gst_element_get_static_pad(harness_element(h, "conv"), "sink");
    GstCaps *offered = gst_pad_query_caps(sink, nullptr);
    GstCaps *templ = gst_pad_get_pad_template_caps(sink);
    GstCaps *cuda = gst_caps_from_string("video/x-raw(memory:CUDAMemory), format=NV12");
    const bool in_template = gst_caps_can_intersect(templ, cuda);
    const bool want = std::string(backend) == "auto" && in_template;
    fail_unless(gst_caps_can_intersect(offered, cuda) == want, "backend=%s: CUDA memory %s",
                backend, want ? "not offered" : "offered");
    // What the backend reads stays offered.
    GstCaps *system = gst_caps_from_string("video/x-raw, format=NV12");
    fail_unless(gst_caps_can_intersect(offered, system), "backend=%s: NV12 not offered", backend);
    for (GstCaps *c : {offered, templ, cuda, system})
      gst_caps_unref(c);
    gst_object_unref(sink);
    gst_harness_teardown(h);
  }
  // Into GL memory too, under auto and cuda (CUDA-GL interop), not under gl.
  for (const char *backend : {"gl", "auto", "cuda"}) {
    GstHarness *h =
        gst_harness_new_parse((std::string("efconvert name=conv backend=") + backend).c_str());
    gst_harness_set_sink_caps_str(h,
                                  "video/x-raw(memory:GLMemory), format=RGBA, width=64, height=64");
    GstPad *sink = gst_element_get_static_pad(harness_element(h, "conv"), "sink");
    GstCaps *offered = gst_pad_query_caps(sink, nullptr);
    GstCaps *templ = gst_pad_get_pad_template_caps(sink);
    GstCaps *cuda = gst_caps_from_string("video/x-raw(memory:CUDAMemory), format=NV12");
    const bool want = std::string(backend) != "gl" && gst_caps_can_intersect(templ, cuda);
    fail_unless(gst_caps_can_intersect(offered, cuda) == want,
                "backend=%s into GL memory: CUDA memory %s", backend,
                want ? "not offered" : "offered");
    for (GstCaps *c : {offered, templ, cuda})
      gst_caps_unref(c);
    gst_object_unref(sink);
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

// backend=cuda takes frames in CUDA memory only: frames in system memory
// are refused at negotiation with the reason on the bus (the backends that
// can, or that this build has no CUDA backend), never converted wrongly.
GST_START_TEST(test_cuda_backend_refuses_system_memory) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cuda");
  expect_caps_refused(h, "video/x-raw, format=NV12, width=64, height=48",
                      "video/x-raw, format=RGB, width=32, height=32",
                      "NV12 in system memory to RGB frames in system memory");
  gst_harness_teardown(h);
}
GST_END_TEST;

// An input no GstVideoInfo can describe: refused naming the CPU path's limit,
// not "Cannot parse caps".
GST_START_TEST(test_size_beyond_cpu_limit) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  expect_caps_refused(h, "video/x-raw, format=RGBA, width=100000, height=100000",
                      "video/x-raw, format=RGB, width=32, height=32",
                      "width 100000 exceeds the CPU path's maximum frame side 16384");
  gst_harness_teardown(h);
}
GST_END_TEST;

// The caps efconvert answers carry its limit, so a source that can choose
// picks a size that works. (Tensor caps say their size in a string,
// `dimensions`, which cannot carry a range: sizes beyond the limit are
// refused at negotiation, test_efconvert_tensor.)
GST_START_TEST(test_caps_carry_size_limit) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  for (const char *name : {"sink", "src"}) {
    GstPad *pad = gst_element_get_static_pad(conv, name);
    expect_bounded_sides(pad, "video/x-raw(ANY)", 16384);
    gst_object_unref(pad);
  }
  gst_object_unref(conv);
}
GST_END_TEST;

// n-threads defaults to 0 (one per online CPU) and, whatever it is set to,
// a frame large enough to be cut into bands comes out as with one thread.
GST_START_TEST(test_n_threads) {
  GstVideoInfo in, out;
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_NV12, 1281, 721);
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGBP, 641, 640);
  GstBuffer *frame = system_frame(in, 3);
  GstBuffer *first = nullptr;
  for (guint threads : {1u, 0u, 3u, 7u}) {
    const std::string props = "n-threads=" + std::to_string(threads);
    GstHarness *h = convert_harness(props.c_str(), in, out);
    GstElement *conv = gst_bin_get_by_name(GST_BIN(h->element), "conv");
    guint set = 99;
    g_object_get(conv, "n-threads", &set, nullptr);
    gst_object_unref(conv);
    fail_unless_equals_int(set, threads);
    GstBuffer *got = gst_harness_push_and_pull(h, gst_buffer_ref(frame));
    fail_unless(got != nullptr, "n-threads %u: no output", threads);
    if (!first) {
      first = got;
    } else {
      GstMapInfo a, b;
      fail_unless(gst_buffer_map(first, &a, GST_MAP_READ) && gst_buffer_map(got, &b, GST_MAP_READ));
      fail_unless(a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0,
                  "n-threads %u: the output differs from n-threads 1", threads);
      gst_buffer_unmap(first, &a);
      gst_buffer_unmap(got, &b);
      gst_buffer_unref(got);
    }
    gst_harness_teardown(h);
  }
  GstElement *fresh = gst_element_factory_make("efconvert", nullptr);
  guint initial = 99;
  g_object_get(fresh, "n-threads", &initial, nullptr);
  fail_unless_equals_int(initial, 0);
  gst_object_unref(fresh);
  gst_buffer_unref(first);
  gst_buffer_unref(frame);
}
GST_END_TEST;

namespace {

const char *method_nick(GstElement *conv) {
  gint method = -1;
  g_object_get(conv, "method", &method, nullptr);
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "method");
  GEnumValue *value = g_enum_get_value(G_PARAM_SPEC_ENUM(spec)->enum_class, method);
  return value ? value->value_nick : "";
}

// A 16x16 RGBA checkerboard of 1-pixel black and white squares into 5x5 RGB
// (no letterbox) by `method`.
GstBuffer *checker_scaled(const char *method) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 16, 16);
  const std::string props = std::string("letterbox=false method=") + method;
  GstHarness *h = convert_harness(props.c_str(), in, info_of(GST_VIDEO_FORMAT_RGB, 5, 5));
  GstBuffer *buf = flat_rgba(in, 0);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  for (guint i = 0; i < 16 * 16; ++i)
    std::memset(map.data + 4 * i, (i % 16 + i / 16) % 2 ? 255 : 0, 3);
  gst_buffer_unmap(buf, &map);
  GstBuffer *out = gst_harness_push_and_pull(h, buf);
  gst_harness_teardown(h);
  return out;
}

}  // namespace

// method takes videoscale's nicks, with videoscale's numbers, and ef's
// earlier "nearest"; it reads back GStreamer's nick. nearest-neighbour
// samples (every output pixel one of the source's), bilinear filters.
GST_START_TEST(test_method_nicks) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  GEnumClass *ef =
      G_PARAM_SPEC_ENUM(g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "method"))
          ->enum_class;
  if (GstElement *scale = gst_element_factory_make("videoscale", nullptr)) {
    GEnumClass *stock =
        G_PARAM_SPEC_ENUM(g_object_class_find_property(G_OBJECT_GET_CLASS(scale), "method"))
            ->enum_class;
    for (const char *nick : {"nearest-neighbour", "bilinear"}) {
      GEnumValue *a = g_enum_get_value_by_nick(ef, nick),
                 *b = g_enum_get_value_by_nick(stock, nick);
      fail_unless(a && b, "%s", nick);
      fail_unless_equals_int(a->value, b->value);
    }
    gst_object_unref(scale);
  } else {
    std::printf("videoscale is not installed: its numbers are not compared\n");
  }
  for (auto [set, reads] :
       {std::pair{"nearest-neighbour", "nearest-neighbour"}, std::pair{"bilinear", "bilinear"},
        std::pair{"nearest", "nearest-neighbour"}}) {
    gst_util_set_object_arg(G_OBJECT(conv), "method", set);
    fail_unless_equals_string(method_nick(conv), reads);
  }
  gst_object_unref(conv);
  GstHarness *h = gst_harness_new_parse("efconvert name=conv method=nearest-neighbour");
  fail_unless_equals_string(method_nick(harness_element(h, "conv")), "nearest-neighbour");
  gst_harness_teardown(h);

  GstBuffer *nn = checker_scaled("nearest-neighbour"), *old = checker_scaled("nearest");
  GstBuffer *bilinear = checker_scaled("bilinear");
  GstMapInfo a, b, c;
  fail_unless(gst_buffer_map(nn, &a, GST_MAP_READ) && gst_buffer_map(old, &b, GST_MAP_READ) &&
              gst_buffer_map(bilinear, &c, GST_MAP_READ));
  fail_unless(a.size == b.size && std::memcmp(a.data, b.data, a.size) == 0,
              "nearest and nearest-neighbour differ");
  int grey = 0;
  for (gsize i = 0; i < a.size; ++i) {
    fail_unless(a.data[i] == 0 || a.data[i] == 255, "nearest-neighbour made %d", a.data[i]);
    grey += c.data[i] > 16 && c.data[i] < 240;
  }
  fail_unless(grey > 0, "bilinear made no value between black and white");
  gst_buffer_unmap(nn, &a);
  gst_buffer_unmap(old, &b);
  gst_buffer_unmap(bilinear, &c);
  for (GstBuffer *buf : {nn, old, bilinear})
    gst_buffer_unref(buf);
}
GST_END_TEST;

// The array properties show their gst-launch-1.0 syntax in gst-inspect,
// and that syntax sets them.
GST_START_TEST(test_array_syntax_shown) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  for (const char *name : {"crop", "mean", "std"}) {
    GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(conv), name);
    const std::string blurb = g_param_spec_get_blurb(spec);
    const std::string example = std::string(name) + "=\"<";
    const size_t at = blurb.find(example);
    fail_unless(at != std::string::npos, "%s: %s", name, blurb.c_str());
    // The example as written sets the property.
    const size_t end = blurb.find(">\"", at);
    const std::string value = blurb.substr(at + example.size() - 1, end - at - example.size() + 2);
    gst_util_set_object_arg(G_OBJECT(conv), name, value.c_str());
  }
  fail_unless(crop_of(conv) == "<160, 90, 960, 540>", "%s", crop_of(conv).c_str());
  const std::string refused = start_error(conv);
  fail_unless(refused.empty(), "an example refused: %s", refused.c_str());
  gst_object_unref(conv);
}
GST_END_TEST;

// Caps beyond the limit in gst-launch-1.0: the line links (no bare "could
// not link") and the first error names the limit, from efconvert.
GST_START_TEST(test_size_limit_in_gst_launch) {
  for (const char *size : {"width=17000,height=16", "width=100000,height=100000"}) {
    const std::string line = std::string("videotestsrc num-buffers=1 ! video/x-raw,") + size +
                             " ! efconvert name=c ! fakesink";
    const std::string error = launch_error(line.c_str());
    fail_unless(
        error.rfind("c: c cannot take these frames: width ", 0) == 0 &&
            error.find("exceeds the CPU path's maximum frame side 16384") != std::string::npos,
        "%s: %s", size, error.c_str());
  }
  const std::string within = launch_error(
      "videotestsrc num-buffers=1 ! video/x-raw,width=16384,height=2 ! efconvert ! "
      "video/x-raw,format=RGB,width=8,height=8 ! fakesink");
  fail_unless(within.empty(), "%s", within.c_str());
}
GST_END_TEST;

// Caps efconvert does not take, in (NV16) or out (NV12 frames, int32
// tensors), behind a capsfilter: the line links (no bare "can't handle
// caps") and negotiation stops with an ERROR naming the refused caps and
// what efconvert takes for that side, from a caps query as a source asks.
GST_START_TEST(test_unsupported_caps_named) {
  GstHarness *h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  GstBus *bus = attach_bus(h);
  GstCaps *nv16 = gst_caps_from_string("video/x-raw, format=NV16, width=64, height=48");
  GstCaps *answer = gst_pad_peer_query_caps(h->srcpad, nv16);
  fail_unless(gst_caps_is_empty(answer));
  std::string error = pop_error(bus);
  fail_unless(
      error.find("conv cannot convert NV16 frames: it reads NV12, I420") != std::string::npos, "%s",
      error.c_str());
  gst_caps_unref(answer);
  gst_caps_unref(nv16);
  release_bus(bus);
  gst_harness_teardown(h);

  h = gst_harness_new_parse("efconvert name=conv backend=cpu");
  bus = attach_bus(h);
  gst_harness_set_sink_caps_str(h, "video/x-raw, format=NV12, width=32, height=32");
  GstCaps *nv12 = gst_caps_from_string("video/x-raw, format=NV12, width=64, height=48");
  answer = gst_pad_peer_query_caps(h->srcpad, nv12);
  fail_unless(gst_caps_is_empty(answer));
  error = pop_error(bus);
  fail_unless(error.find("conv cannot make what downstream takes (video/x-raw, "
                         "format=(string)NV12") != std::string::npos &&
                  error.find("it makes RGB, BGR") != std::string::npos,
              "%s", error.c_str());
  gst_caps_unref(answer);
  gst_caps_unref(nv12);
  release_bus(bus);
  gst_harness_teardown(h);

  for (auto [line, says] : {
           std::pair{"videotestsrc num-buffers=1 ! video/x-raw,format=NV16 ! efconvert name=c ! "
                     "fakesink",
                     "c cannot convert NV16 frames: it reads NV12"},
           std::pair{"videotestsrc num-buffers=1 ! efconvert name=c ! video/x-raw,format=NV12 ! "
                     "fakesink",
                     "c cannot make what downstream takes (video/x-raw, format=(string)NV12)"},
           std::pair{"videotestsrc num-buffers=1 ! efconvert name=c ! other/tensors,types=int32 ! "
                     "fakesink",
                     "c cannot make what downstream takes (other/tensors, types=(string)int32)"},
       }) {
    error = launch_error(line);  // it must link
    fail_unless(error.find(says) != std::string::npos, "%s: %s", line, error.c_str());
    const LaunchRun run = run_gst_launch(line);
    fail_unless(run.status != 0 && run.output.find(says) != std::string::npos &&
                    run.output.find("can't handle caps") == std::string::npos,
                "%s: status %d: %s", line, run.status, run.output.c_str());
  }
  // What it takes still links and runs, converted first where it must be.
  for (const char *line :
       {"videotestsrc num-buffers=2 ! video/x-raw,format=NV16 ! videoconvert ! efconvert ! "
        "video/x-raw,format=RGB,width=32,height=32 ! fakesink",
        "videotestsrc num-buffers=2 ! efconvert ! videoconvert ! video/x-raw,format=NV12 ! "
        "fakesink"}) {
    error = launch_error(line);
    fail_unless(error.empty(), "%s: %s", line, error.c_str());
  }
}
GST_END_TEST;

namespace {

std::string blurb_of(GstElement *element, const char *name) {
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
  fail_unless(spec != nullptr, "no %s", name);
  return g_param_spec_get_blurb(spec);
}

}  // namespace

// gst-inspect's text says what the element does: the method enum lists each
// value once, the source template only what comes out (no input-only
// format), backend-in-use names every backend, stats is short and names
// each field, quant-scale states its range and its spec lets other values
// reach efconvert (which refuses them on the bus).
GST_START_TEST(test_inspect_texts) {
  GstElement *conv = gst_element_factory_make("efconvert", nullptr);
  auto *method =
      G_PARAM_SPEC_ENUM(g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "method"));
  for (guint i = 0; i < method->enum_class->n_values; ++i)
    for (guint j = i + 1; j < method->enum_class->n_values; ++j)
      fail_if(method->enum_class->values[i].value == method->enum_class->values[j].value,
              "method lists %d twice", method->enum_class->values[i].value);

  GstCaps *src = gst_pad_template_get_caps(
      gst_element_class_get_pad_template(GST_ELEMENT_GET_CLASS(conv), "src"));
  for (guint i = 0; i < gst_caps_get_size(src); ++i) {
    const GstStructure *st = gst_caps_get_structure(src, i);
    const GValue *formats = gst_structure_get_value(st, "format");
    if (!gst_structure_has_name(st, "video/x-raw"))
      continue;  // tensors
    const bool list = GST_VALUE_HOLDS_LIST(formats);
    for (guint k = 0; k < (list ? gst_value_list_get_size(formats) : 1); ++k) {
      const char *name = g_value_get_string(list ? gst_value_list_get_value(formats, k) : formats);
      if (g_strcmp0(name, "DMA_DRM") == 0)
        continue;  // no formats named: drm-format, in caps, is checked at negotiation
      const GstVideoFormatInfo *info =
          gst_video_format_get_info(gst_video_format_from_string(name));
      fail_unless(GST_VIDEO_FORMAT_INFO_IS_RGB(info) || GST_VIDEO_FORMAT_INFO_IS_GRAY(info),
                  "the source template lists %s, which efconvert only reads", name);
    }
  }
  gst_caps_unref(src);

  const std::string in_use = blurb_of(conv, "backend-in-use");
  auto *backends =
      G_PARAM_SPEC_ENUM(g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "backend"));
  for (guint i = 0; i < backends->enum_class->n_values; ++i) {
    const std::string nick = backends->enum_class->values[i].value_nick;
    fail_unless(nick == "auto" || in_use.find(nick) != std::string::npos, "%s: %s", nick.c_str(),
                in_use.c_str());
  }

  const std::string stats = blurb_of(conv, "stats");
  guint words = 0;
  for (size_t at = 0; (at = stats.find(' ', at)) != std::string::npos; ++at)
    ++words;
  fail_unless(words < 80, "stats: %u words: %s", words, stats.c_str());
  GstStructure *fields = nullptr;
  g_object_get(conv, "stats", &fields, nullptr);
  for (gint i = 0; i < gst_structure_n_fields(fields); ++i)
    fail_unless(stats.find(gst_structure_nth_field_name(fields, i)) != std::string::npos, "%s",
                gst_structure_nth_field_name(fields, i));
  gst_structure_free(fields);

  const std::string scale = blurb_of(conv, "quant-scale");
  fail_unless(scale.find("above 0") != std::string::npos, "%s", scale.c_str());
  auto *scale_spec =
      G_PARAM_SPEC_DOUBLE(g_object_class_find_property(G_OBJECT_GET_CLASS(conv), "quant-scale"));
  fail_unless(scale_spec->minimum < 0, "0 and below would be GLib's warning, not efconvert's");

  const std::string description =
      gst_element_class_get_metadata(GST_ELEMENT_GET_CLASS(conv), GST_ELEMENT_METADATA_DESCRIPTION);
  fail_unless(description.find("(1,3,H,W) is dimensions=W:H:3:1") != std::string::npos, "%s",
              description.c_str());
  gst_object_unref(conv);
}
GST_END_TEST;

// readback-depth changes how long outputs are held: set while playing, the
// pipeline is told to ask for the latency again.
GST_START_TEST(test_readback_depth_asks_latency) {
  GstVideoInfo in = info_of(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GstHarness *h = convert_harness("", in, in);
  GstBus *bus = attach_bus(h);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  while (GstMessage *old = gst_bus_pop(bus))
    gst_message_unref(old);
  g_object_set(harness_element(h, "conv"), "readback-depth", 2u, nullptr);
  GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_LATENCY);
  fail_unless(msg != nullptr, "no LATENCY message");
  gst_message_unref(msg);
  fail_unless_equals_int(gst_harness_push(h, flat_rgba(in, 0xff)), GST_FLOW_OK);
  gst_buffer_unref(gst_harness_pull(h));
  release_bus(bus);
  gst_harness_teardown(h);
}
GST_END_TEST;

static Suite *convert_suite() {
  Suite *s = suite_create("efconvert");
  TCase *tc = tcase_create("element");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_letterbox_geometry);
  tcase_add_loop_test(tc, test_odd_margin_placement, 0, kOddMarginCount);
  tcase_add_test(tc, test_stretch);
  tcase_add_test(tc, test_crop_meta_and_property);
  tcase_add_test(tc, test_rotation_negotiates_and_maps);
  tcase_add_test(tc, test_output_is_fd_backed_and_identified);
  tcase_add_test(tc, test_destination_recycling);
  tcase_add_test(tc, test_cpu_maps_ring_once);
  tcase_add_test(tc, test_cache_capacity_applies_at_once);
  tcase_add_test(tc, test_stats_on_eos);
  tcase_add_test(tc, test_zero_size_crop);
  tcase_add_test(tc, test_crop_outside_frame);
  tcase_add_test(tc, test_crop_beyond_crop_meta);
  tcase_add_test(tc, test_video_direction_custom_refused);
  tcase_add_test(tc, test_method_nicks);
  tcase_add_test(tc, test_array_syntax_shown);
  tcase_add_test(tc, test_size_limit_in_gst_launch);
  tcase_add_test(tc, test_readback_depth_asks_latency);
  tcase_add_test(tc, test_unsupported_caps_named);
  tcase_add_test(tc, test_inspect_texts);
  tcase_add_test(tc, test_buffer_smaller_than_caps);
  tcase_add_test(tc, test_impossible_caps);
  tcase_add_test(tc, test_max_errors_default);
  tcase_add_test(tc, test_max_errors_two);
  tcase_add_test(tc, test_max_errors_never);
  tcase_add_test(tc, test_size_beyond_cpu_limit);
  tcase_add_test(tc, test_caps_carry_size_limit);
  tcase_add_test(tc, test_n_threads);
  tcase_add_test(tc, test_not_a_buffer_refused);
  tcase_add_test(tc, test_cuda_backend_refuses_system_memory);
  tcase_add_test(tc, test_cuda_memory_offered_by_backend);
  tcase_add_loop_test(tc, test_closed_input_fd, 0, 20);
  tcase_add_loop_test(tc, test_short_input_fd, 0, kShortFdCases);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_gap_buffers);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(convert);
