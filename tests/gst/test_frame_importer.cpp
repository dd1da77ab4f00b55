// SPDX-License-Identifier: LGPL-2.1-or-later
// The import step every element takes (FrameImporter, DeclineLog), below any
// element: each decline reason and its warning, the switch-off rule, a
// validation refusal, and an import made versus served from the cache.
// The C++ headers first: gstcheck.h defines a macro named fail().
#include <string>
#include <vector>

#include "common/frame_importer.hpp"
#include "frames.hpp"
#include "harness.hpp"

#include <gst/check/gstcheck.h>
#include <unistd.h>

using namespace ef;
using namespace ef::gst;
using namespace ef::test;

GST_DEBUG_CATEGORY_STATIC(test_debug);

namespace {

constexpr DeclineTexts kTexts{.heading = "Copying", .import_failed = "the import failed"};

// An element with a bus of its own, where declines are posted, and an
// importer of ints that counts its calls to make.
struct Fixture {
  GstElement *element = gst_pipeline_new("importer");
  GstBus *bus = gst_element_get_bus(element);
  ImportCache<int> cache;
  FrameImporter<int> importer;
  GstVideoInfo info{};
  int made = 0;
  Result<int> next = 7;  // what make returns

  explicit Fixture(OnFailure on_failure = OnFailure::SwitchOff, const DeclineTexts &texts = kTexts)
      : importer(cache, test_debug, texts, on_failure) {
    gst_video_info_set_format(&info, GST_VIDEO_FORMAT_NV12, 66, 34);  // odd sides of chroma rows
  }
  ~Fixture() {
    gst_bus_set_flushing(bus, TRUE);
    gst_object_unref(bus);
    gst_object_unref(element);
  }

  FrameImporter<int>::Outcome import(GstBuffer *buffer, const ImportChecks &checks = {}) {
    auto layout = locate_planes(buffer, info);
    fail_unless(layout.ok(), "%s", layout ? "" : layout.error().message.c_str());
    return importer.import(
        element, buffer, *layout,
        [this]() -> Result<int> {
          ++made;
          return next;
        },
        checks);
  }

  // The WARNING texts posted since the last call.
  std::vector<std::string> warnings() { return pop_warnings(bus); }

  void expect_declined(const FrameImporter<int>::Outcome &got, Decline why) {
    fail_unless(got.import == nullptr);
    fail_if(got.imported);
    fail_unless(got.declined.has_value(), "not declined");
    fail_unless_equals_int(int(*got.declined), int(why));
  }
};

}  // namespace

// A miss imports (made once, `imported`); the same buffer again is served
// from the cache: the same import, nothing made, nothing declined.
GST_START_TEST(test_imported_then_served) {
  Fixture f;
  GstBuffer *frame = memfd_frame(f.info, 1);
  auto initial = f.import(frame);
  fail_unless(initial.import != nullptr);
  fail_unless(initial.imported);
  fail_if(initial.declined.has_value());
  fail_unless_equals_int(*initial.import, 7);
  auto repeat = f.import(frame);
  fail_unless(repeat.import == initial.import);
  fail_if(repeat.imported, "served from the cache, not imported");
  fail_unless_equals_int(f.made, 1);
  fail_unless_equals_uint64(f.cache.stats().hits, 1);
  fail_unless_equals_uint64(f.cache.stats().misses, 1);
  fail_unless_equals_uint64(f.importer.declines().count(), 0);
  fail_unless(f.warnings().empty());
  gst_buffer_unref(frame);
}
GST_END_TEST;

// System memory is declined before anything is asked, and warned about
// once however many frames follow.
GST_START_TEST(test_system_memory_declined) {
  Fixture f;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    GstBuffer *frame = system_frame(f.info, seed);
    auto got = f.import(frame);
    f.expect_declined(got, Decline::SystemMemory);
    fail_unless_equals_string(got.detail.c_str(), "memory is not a dma-buf or memfd");
    gst_buffer_unref(frame);
  }
  fail_unless_equals_int(f.made, 0);
  fail_unless_equals_uint64(f.importer.declines().count(Decline::SystemMemory), 3);
  fail_unless_equals_uint64(f.importer.declines().count(), 3);
  const auto warnings = f.warnings();
  fail_unless_equals_int(warnings.size(), 1);
  fail_unless_equals_string(warnings[0].c_str(), "Copying: input is not fd-backed memory");
}
GST_END_TEST;

// The site's own rule for memory replaces the fd check: system memory it
// takes is imported (keyed by its address), fd memory it refuses declined.
GST_START_TEST(test_memory_rule_of_the_site) {
  Fixture f;
  ImportChecks any;
  any.takes = [](GstBuffer *, const FrameLayout &) { return true; };
  GstBuffer *system = system_frame(f.info, 1);
  auto got = f.import(system, any);
  fail_unless(got.import != nullptr && got.imported);
  fail_unless_equals_int(int(got.key.planes[0].kind), int(IdentityKind::HostPtr));
  ImportChecks none;
  none.takes = [](GstBuffer *, const FrameLayout &) { return false; };
  GstBuffer *fd = memfd_frame(f.info, 2);
  f.expect_declined(f.import(fd, none), Decline::SystemMemory);
  fail_unless_equals_int(f.made, 1);
  gst_buffer_unref(system);
  gst_buffer_unref(fd);
}
GST_END_TEST;

// A driver without the import: declined with the site's reason, nothing
// asked of the cache.
GST_START_TEST(test_no_driver_support) {
  Fixture f;
  ImportChecks checks;
  checks.no_driver_support = [] { return std::string("EGL_EXT_image_dma_buf_import is missing"); };
  GstBuffer *frame = memfd_frame(f.info, 1);
  auto got = f.import(frame, checks);
  f.expect_declined(got, Decline::NoDriverSupport);
  fail_unless_equals_string(got.detail.c_str(), "EGL_EXT_image_dma_buf_import is missing");
  fail_unless_equals_int(f.made, 0);
  fail_unless_equals_uint64(f.cache.stats().misses, 0);
  const auto warnings = f.warnings();
  fail_unless_equals_int(warnings.size(), 1);
  fail_unless_equals_string(warnings[0].c_str(), "Copying: the driver cannot import dma-bufs");
  gst_buffer_unref(frame);
}
GST_END_TEST;

// fd memory whose fd names no buffer (a pipe): no key, declined.
GST_START_TEST(test_no_identity) {
  Fixture f;
  int fds[2];
  GstBuffer *frame = pipe_frame(f.info, fds);  // fd memory; a pipe owns no bytes to name
  fail_unless(frame != nullptr);
  auto got = f.import(frame);
  f.expect_declined(got, Decline::NoIdentity);
  fail_unless(got.detail.find("plane 0") != std::string::npos, "%s", got.detail.c_str());
  fail_unless_equals_int(f.made, 0);
  gst_buffer_unref(frame);
  close(fds[0]);
  close(fds[1]);
}
GST_END_TEST;

// The fd of a live memory closed and its number taken by other bytes: the
// cached import is refused (ESTALE), the caller copies, and the import
// stays on: the next frame in good memory is imported.
GST_START_TEST(test_refusal_is_one_frame) {
  Fixture f;
  int fd = make_memfd("ef-a", f.info.size);
  GstBuffer *held = fd_frame(fd, f.info, 1);  // DONT_CLOSE: the test owns the fd
  fail_unless(f.import(held).imported);
  close(fd);
  int reused = make_memfd("ef-b", f.info.size);
  fail_unless_equals_int(reused, fd);
  auto got = f.import(held);
  f.expect_declined(got, Decline::Refused);
  fail_unless(got.detail.find("plane 0") != std::string::npos, "%s", got.detail.c_str());
  fail_if(f.importer.switched_off());
  fail_unless_equals_uint64(f.cache.stats().refusals, 1);
  GstBuffer *fresh = memfd_frame(f.info, 2);
  fail_unless(f.import(fresh).imported);
  fail_unless_equals_int(f.made, 2);
  const auto warnings = f.warnings();
  fail_unless_equals_int(warnings.size(), 1);
  fail_unless_equals_string(warnings[0].c_str(),
                            "Copying: identity validation refused the cached import");
  gst_buffer_unref(held);
  gst_buffer_unref(fresh);
  close(reused);
}
GST_END_TEST;

// A failed import switches the import off: the driver is not asked again
// until switch_on() (new caps), and the frames between are declined for the
// same reason, warned about once, not for another.
GST_START_TEST(test_failure_switches_off) {
  Fixture f;
  f.next = Error{EIO, "the driver says no"};
  std::vector<GstBuffer *> frames;
  for (uint32_t seed = 1; seed <= 3; ++seed)
    frames.push_back(memfd_frame(f.info, seed));
  auto initial = f.import(frames[0]);
  f.expect_declined(initial, Decline::ImportFailed);
  fail_unless_equals_string(initial.detail.c_str(), "the driver says no");
  fail_unless(f.importer.switched_off());
  auto later = f.import(frames[1]);
  f.expect_declined(later, Decline::ImportFailed);
  fail_unless_equals_string(later.detail.c_str(), "an earlier import of these caps failed");
  // Switched off comes before the driver's support: no repeat reason.
  ImportChecks checks;
  checks.no_driver_support = [] { return std::string("missing"); };
  f.expect_declined(f.import(frames[2], checks), Decline::ImportFailed);
  fail_unless_equals_int(f.made, 1);
  const auto warnings = f.warnings();
  fail_unless_equals_int(warnings.size(), 1);
  fail_unless_equals_string(warnings[0].c_str(), "Copying: the import failed");
  fail_unless_equals_uint64(f.importer.declines().count(Decline::ImportFailed), 3);
  f.next = 8;
  f.importer.switch_on();
  auto again = f.import(frames[1]);
  fail_unless(again.imported);
  fail_unless_equals_int(*again.import, 8);
  fail_unless_equals_int(f.made, 2);
  for (GstBuffer *b : frames)
    gst_buffer_unref(b);
}
GST_END_TEST;

// A mapping's failure is about one file: with OnFailure::KeepOn the next
// frame is asked again.
GST_START_TEST(test_failure_kept_on) {
  Fixture f(OnFailure::KeepOn);
  f.next = Error{ENOMEM, "mmap failed"};
  GstBuffer *frame = memfd_frame(f.info, 1);
  f.expect_declined(f.import(frame), Decline::ImportFailed);
  fail_if(f.importer.switched_off());
  f.next = 9;
  fail_unless(f.import(frame).imported);
  fail_unless_equals_int(f.made, 2);
  gst_buffer_unref(frame);
}
GST_END_TEST;

// A new stream warns about each reason again; the counts go on.
GST_START_TEST(test_reset_warns_again) {
  Fixture f;
  GstBuffer *frame = system_frame(f.info, 1);
  f.import(frame);
  f.import(frame);
  fail_unless_equals_int(f.warnings().size(), 1);
  f.importer.declines().reset();
  f.import(frame);
  fail_unless_equals_int(f.warnings().size(), 1);
  fail_unless_equals_uint64(f.importer.declines().count(), 3);
  gst_buffer_unref(frame);
}
GST_END_TEST;

// Texts without a heading are logged only: nothing on the bus.
GST_START_TEST(test_quiet_texts_post_nothing) {
  Fixture f(OnFailure::SwitchOff, DeclineTexts{.what = "source"});
  GstBuffer *frame = system_frame(f.info, 1);
  f.expect_declined(f.import(frame), Decline::SystemMemory);
  fail_unless(f.warnings().empty());
  fail_unless_equals_uint64(f.importer.declines().count(), 1);
  gst_buffer_unref(frame);
}
GST_END_TEST;

// Every reason has a text of its own.
GST_START_TEST(test_every_reason_named) {
  const DeclineLog log(test_debug, kTexts);
  std::vector<std::string> seen;
  for (unsigned r = 0; r < kDeclineReasons; ++r) {
    const std::string text = log.text(Decline(r));
    fail_if(text.empty() || text == "unknown", "reason %u", r);
    for (const std::string &other : seen)
      fail_if(other == text, "reasons share the text %s", text.c_str());
    seen.push_back(text);
  }
}
GST_END_TEST;

static Suite *frame_importer_suite() {
  GST_DEBUG_CATEGORY_INIT(test_debug, "test-frame-importer", 0, "frame importer test");
  Suite *s = suite_create("frame_importer");
  TCase *tc = tcase_create("importer");
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_imported_then_served);
  tcase_add_test(tc, test_system_memory_declined);
  tcase_add_test(tc, test_memory_rule_of_the_site);
  tcase_add_test(tc, test_no_driver_support);
  tcase_add_test(tc, test_no_identity);
  tcase_add_test(tc, test_refusal_is_one_frame);
  tcase_add_test(tc, test_failure_switches_off);
  tcase_add_test(tc, test_failure_kept_on);
  tcase_add_test(tc, test_reset_warns_again);
  tcase_add_test(tc, test_quiet_texts_post_nothing);
  tcase_add_test(tc, test_every_reason_named);
  return s;
}

GST_CHECK_MAIN(frame_importer);
