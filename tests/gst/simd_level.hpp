// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU kernels' tests run again with EF_CPU_SIMD capping the vector
// units (tests/gst/meson.build: ssse3 and c), so that the paths below the
// best one are tested too, whole, not only in the tails the best one
// leaves. A run asked for a level the CPU lacks says SKIP and why.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "efconvert/backends/cpu/cpu_simd.hpp"

namespace ef::test {

// 77 (meson's SKIP) where EF_CPU_SIMD asks for what this CPU cannot run
// (or names no level), else 0.
inline int skip_unless_simd_as_asked() {
  const char *asked = std::getenv("EF_CPU_SIMD");
  if (!asked)
    return 0;
  const char *level = gst::cpu::simd_name(gst::cpu::simd());
  if (std::strcmp(asked, level) == 0) {
    std::printf("CPU kernels at EF_CPU_SIMD=%s\n", level);
    return 0;
  }
  std::printf("SKIP: EF_CPU_SIMD=%s, but this CPU runs %s at best\n", asked,
              gst::cpu::simd_name(gst::cpu::simd_supported()));
  return 77;
}

}  // namespace ef::test
