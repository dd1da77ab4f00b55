// SPDX-License-Identifier: LGPL-2.1-or-later
// Which x86 vector units the kernels may use, decided once a process: the
// best the CPU has, capped by EF_CPU_SIMD (c, ssse3 or avx2) where it is
// set, so that tests run every path, not only the best one, on a CPU that
// has them all. The kernels of cpu_box, cpu_area, cpu_up2 and cpu_tensor
// take their SSSE3 or AVX2 paths by it, and their C paths without them (and
// on other architectures, where EF_CPU_X86 is not set).
#pragma once

namespace ef::gst::cpu {

enum class Simd { C, Ssse3, Avx2 };

Simd simd();
// What the CPU has, EF_CPU_SIMD aside.
Simd simd_supported();
const char *simd_name(Simd level);

}  // namespace ef::gst::cpu

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define EF_CPU_X86 1
#define EF_SSSE3 __attribute__((target("ssse3")))
#define EF_AVX2 __attribute__((target("avx2")))

namespace ef::gst::cpu {

inline bool have_avx2() {
  static const bool have = simd() >= Simd::Avx2;
  return have;
}

inline bool have_ssse3() {
  static const bool have = simd() >= Simd::Ssse3;
  return have;
}

}  // namespace ef::gst::cpu
#endif
