// SPDX-License-Identifier: LGPL-2.1-or-later
// main() for gst-check suites that need GL: says SKIP with the reason (exit
// 77, which meson reports as skipped) instead of passing when it is missing.
#pragma once

#include <gst/check/gstcheck.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include "frames.hpp"

namespace ef::test {

enum class Needs { Gl, EglDmabufImport, GlCompute };

// Runs `probe` in a child process: Check forks every test from this
// process, and a GL display or driver thread made here before the fork
// would be inherited half-alive by every test. `why` gets what the probe
// said when it fails.
inline bool probe_in_child(const std::function<bool(std::string &)> &probe, std::string &why) {
  int fds[2];
  if (pipe(fds) != 0) {
    why = "pipe failed";
    return false;
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    std::string reason;
    bool ok = probe(reason);
    if (!ok && write(fds[1], reason.data(), reason.size()) < 0)
      _exit(2);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    why.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) && why.empty())
    why = "the probe crashed";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

inline bool probe_in_child(Needs needs, std::string &why) {
  return probe_in_child(
      [needs](std::string &reason) {
        switch (needs) {
          case Needs::Gl:
            return gl_available(reason);
          case Needs::GlCompute:
            return gl_compute_available(reason);
          default:
            return egl_dmabuf_import_available(reason);
        }
      },
      why);
}

inline int run_gl_suite(int argc, char **argv, Suite *(*make)(), Needs needs) {
  gst_check_init(&argc, &argv);
  std::string why;
  if (!probe_in_child(needs, why)) {
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
