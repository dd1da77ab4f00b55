// SPDX-License-Identifier: LGPL-2.1-or-later
// FdMapping, the CPU backend's mapping of an fd-backed frame: every plane,
// not only the first of its fd, is checked against what the fd holds, so a
// file shorter than its GstMemory claims is refused naming the plane and
// the fd instead of handing out pointers past the mapping. The element's
// own check before it (cpu_backend.cpp) is tested in test_efconvert.cpp.
// The C++ headers first: gstcheck.h defines a macro named fail().
#include <cerrno>
#include <string>

#include "common/fd_mapping.hpp"
#include "common/frame_layout.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "short_fds.hpp"

#include <gst/check/gstcheck.h>
#include <unistd.h>

using namespace ef::gst;
using namespace ef::test;

namespace {

bool names(const std::string &text, const std::string &what) {
  return text.find(what) != std::string::npos;
}

// The frame over the mapping's plane pointers, as the CPU backend reads it.
std::string check_mapped(const FdMapping &mapping, const FrameLayout &layout, uint32_t seed) {
  GstVideoFrame frame{};
  frame.info = layout.info;
  for (guint p = 0; p < layout.n_planes; ++p)
    frame.data[p] = const_cast<guint8 *>(mapping.plane(p));
  return check_frame(&frame, seed);
}

}  // namespace

// short_fds.hpp's frames: the layout is fine (the memory claims every byte),
// the mapping is refused by the plane past the cut and its fd.
GST_START_TEST(test_short_fd_refused) {
  ShortFdFrame f = short_fd_frame(__i__);
  auto layout = locate_planes(f.buffer, f.info);
  fail_unless(layout.ok(), "%s: %s", f.what, layout ? "" : layout.error().message.c_str());
  auto mapping = FdMapping::create(f.buffer, *layout);
  fail_unless(!mapping.ok(), "%s: mapped, though plane %u lies past the end of fd %d", f.what,
              f.plane, f.fd);
  // ESTALE: the CPU backend refuses the frame instead of reading it through
  // the memory's own map (which would fault the same way).
  fail_unless_equals_int(mapping.error().code, ESTALE);
  const std::string &e = mapping.error().message;
  fail_unless(
      names(e, "plane " + std::to_string(f.plane)) && names(e, "fd " + std::to_string(f.fd)),
      "%s: \"%s\" names not plane %u and fd %d", f.what, e.c_str(), f.plane, f.fd);
  gst_buffer_unref(f.buffer);
}
GST_END_TEST;

// The other side of the boundary: padded NV12 and I420 frames in one fd
// map, each plane's pointer at its bytes, also when the file ends at the
// last plane's last byte (the memory claiming the padding after it).
GST_START_TEST(test_whole_fds_map_every_plane) {
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420})
    for (bool cut_at_last_byte : {false, true}) {
      const GstVideoInfo info = padded_info(format, 330, 246, 20, 3);
      const int fd = make_memfd("ef-test-whole", info.size);
      fail_unless(fd >= 0);
      GstBuffer *buf = fd_frame(fd, info, 11);
      auto layout = locate_planes(buf, info);
      fail_unless(layout.ok());
      const PlaneLocation &last = layout->planes[layout->n_planes - 1];
      fail_unless(last.offset + last.size < info.size, "no padding after the last plane");
      if (cut_at_last_byte)
        fail_unless(ftruncate(fd, off_t(last.offset + last.size)) == 0);
      auto mapping = FdMapping::create(buf, *layout);
      fail_unless(mapping.ok(), "%s%s: %s", GST_VIDEO_INFO_NAME(&info),
                  cut_at_last_byte ? " cut at its last byte" : "",
                  mapping ? "" : mapping.error().message.c_str());
      const std::string bad = check_mapped(*mapping, *layout, 11);
      fail_unless(bad.empty(), "%s: %s", GST_VIDEO_INFO_NAME(&info), bad.c_str());
      gst_buffer_unref(buf);
      close(fd);
    }
}
GST_END_TEST;

static Suite *fd_mapping_suite() {
  Suite *s = suite_create("fd_mapping");
  TCase *tc = tcase_create("mapping");
  tcase_add_loop_test(tc, test_short_fd_refused, 0, kShortFdCases);
  tcase_add_test(tc, test_whole_fds_map_every_plane);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(fd_mapping);
