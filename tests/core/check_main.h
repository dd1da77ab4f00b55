/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs one Check suite and turns its result into the exit status. Usable from
 * C and C++ tests. */
#ifndef EF_TEST_CHECK_MAIN_H
#define EF_TEST_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

#ifdef __cplusplus
/* check.h's deprecated fail() macro breaks std::basic_ios::fail. Include this
 * header after the standard library's. */
#undef fail
#endif

#ifdef __cplusplus
namespace ef::test {
#endif

static inline int run_suite(Suite *suite) {
  SRunner *runner = srunner_create(suite);
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#ifdef __cplusplus
}  // namespace ef::test
#endif

#endif
