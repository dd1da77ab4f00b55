// SPDX-License-Identifier: LGPL-2.1-or-later
// Which x86 vector units the CPU has, asked once: the kernels of cpu_box
// and cpu_area take their SSSE3 or AVX2 paths by it, and their C paths
// without them (and on other architectures, where EF_CPU_X86 is not set).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define EF_CPU_X86 1
#define EF_SSSE3 __attribute__((target("ssse3")))
#define EF_AVX2 __attribute__((target("avx2")))

namespace ef::gst::cpu {

inline bool have_avx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

inline bool have_ssse3() {
  static const bool have = __builtin_cpu_supports("ssse3");
  return have;
}

}  // namespace ef::gst::cpu
#endif
