// SPDX-License-Identifier: LGPL-2.1-or-later
// The VkImage wrapper and its keep-alive (no Vulkan device needed: the wrapper
// never calls Vulkan).

#include <cerrno>

#include "check_main.h"
#include "ef/vk_image.hpp"

using namespace ef;

namespace {

struct Counts {
  int retains = 0;
  int releases = 0;
};

void count_retain(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->retains;
}
void count_release(const void *ctx) {
  ++static_cast<Counts *>(const_cast<void *>(ctx))->releases;
}

}  // namespace

START_TEST(test_null_handle_refused) {
  auto r = VkImage::try_from_raw(0, nullptr, nullptr, nullptr, std::nullopt, 0, std::nullopt);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EINVAL);
  ck_assert_ptr_nonnull(strstr(r.error().message.c_str(), "null handle"));
}
END_TEST

START_TEST(test_builders_and_accessors) {
  int dev, inst, phys;
  DeviceUuid uuid{};
  uuid[0] = 0xab;
  uuid[15] = 0xcd;
  auto base = VkImage::try_from_raw(0x1234, &dev, &inst, &phys, uuid, 7680, std::nullopt);
  ck_assert(base.ok());
  ck_assert_uint_eq(base->width(), 0);
  ck_assert(!base->format().has_value());
  ck_assert(!base->plane_format().has_value());
  ck_assert(!base->acquire_release().has_value());

  auto gate = std::make_shared<SlotGate>();
  VkImage img = base->with_dimensions(1920, 1080)
                    .with_format(PixelFormat::Rgba8)
                    .with_plane_format(PlaneFormat::R8)
                    .with_acquire_release(SlotRelease(gate, 5));
  ck_assert_uint_eq(img.image(), 0x1234);
  ck_assert_ptr_eq(img.device(), &dev);
  ck_assert_ptr_eq(img.instance(), &inst);
  ck_assert_ptr_eq(img.phys_dev(), &phys);
  ck_assert(img.uuid() == uuid);
  ck_assert_uint_eq(img.row_pitch(), 7680);
  ck_assert_uint_eq(img.width(), 1920);
  ck_assert_uint_eq(img.height(), 1080);
  ck_assert(img.format() == PixelFormat::Rgba8);
  ck_assert(img.plane_format() == PlaneFormat::R8);
  ck_assert_uint_eq(img.acquire_release()->value(), 5);
  img.acquire_release()->arm();
  ck_assert_uint_eq(gate->load(), 5);
  // Builders return new values; the original is untouched.
  ck_assert_uint_eq(base->width(), 0);
}
END_TEST

START_TEST(test_keep_alive_shared_by_copies) {
  Counts counts;
  EfClientState state{&counts, count_retain, count_release};
  {
    auto anchor = KeepAlive::from_client_state(state);
    ck_assert(anchor.ok());
    ck_assert_int_eq(counts.retains, 1);
    auto img = VkImage::try_from_raw(0x99, nullptr, nullptr, nullptr, std::nullopt, 0, *anchor);
    anchor = Error{0, ""};
    ck_assert(img.ok());
    {
      VkImage copy = *img;
      VkImage built = copy.with_dimensions(4, 4);
      ck_assert_int_eq(counts.releases, 0);
      ck_assert_ptr_eq(copy.keep_alive()->get(), built.keep_alive()->get());
    }
    ck_assert_int_eq(counts.releases, 0);  // img still alive
  }
  ck_assert_int_eq(counts.retains, 1);
  ck_assert_int_eq(counts.releases, 1);
}
END_TEST

START_TEST(test_null_callbacks_refused) {
  Counts counts;
  EfClientState no_retain{&counts, nullptr, count_release};
  EfClientState no_release{&counts, count_retain, nullptr};
  ck_assert_int_eq(KeepAlive::from_client_state(no_retain).error().code, EINVAL);
  ck_assert_int_eq(KeepAlive::from_client_state(no_release).error().code, EINVAL);
  ck_assert_int_eq(counts.retains, 0);
  ck_assert_int_eq(counts.releases, 0);
}
END_TEST

static Suite *vk_image_suite() {
  Suite *s = suite_create("vk_image");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_null_handle_refused);
  tcase_add_test(tc, test_builders_and_accessors);
  tcase_add_test(tc, test_keep_alive_shared_by_copies);
  tcase_add_test(tc, test_null_callbacks_refused);
  suite_add_tcase(s, tc);
  return s;
}

int main() {
  return ef::test::run_suite(vk_image_suite());
}
