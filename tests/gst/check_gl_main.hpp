// SPDX-License-Identifier: LGPL-2.1-or-later
// main() for gst-check suites that need GL: says SKIP with the reason (exit
// 77, which meson reports as skipped) instead of passing when it is missing.
#pragma once

#include <gst/check/gstcheck.h>

#include <cstdio>
#include <string>

#include "frames.hpp"

namespace ef::test {

enum class Needs { Gl, EglDmabufImport };

inline int run_gl_suite(int argc, char **argv, Suite *(*make)(), Needs needs) {
  gst_check_init(&argc, &argv);
  std::string why;
  bool ok = needs == Needs::Gl ? gl_available(why) : egl_dmabuf_import_available(why);
  if (!ok) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  SRunner *runner = srunner_create(make());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}

}  // namespace ef::test
