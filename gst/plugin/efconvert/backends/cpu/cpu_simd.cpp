// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_simd.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ef::gst::cpu {

namespace {

constexpr const char *kNames[] = {"c", "ssse3", "avx2"};

Simd cap_from_env() {
  const char *cap = std::getenv("EF_CPU_SIMD");
  for (int i = 0; cap && i < 3; ++i)
    if (std::strcmp(cap, kNames[i]) == 0)
      return Simd(i);
  return Simd::Avx2;
}

}  // namespace

Simd simd_supported() {
#ifdef EF_CPU_X86
  static const Simd level = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
      return Simd::Avx2;
    if (__builtin_cpu_supports("ssse3"))
      return Simd::Ssse3;
    return Simd::C;
  }();
  return level;
#else
  return Simd::C;
#endif
}

Simd simd() {
  static const Simd level = std::min(simd_supported(), cap_from_env());
  return level;
}

const char *simd_name(Simd level) {
  return kNames[int(level)];
}

}  // namespace ef::gst::cpu
