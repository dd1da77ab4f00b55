// SPDX-License-Identifier: LGPL-2.1-or-later
// The widest pixel sweeps, sampled where a leg runs them for something
// other than their values. ASan's instrumentation makes the converters
// several times slower, and a sweep of every format pair at every geometry
// then passes Check's time limit (cpu_bands did, at 600 s); what a
// sanitizer finds (an access past a row, a band's edge, an undefined
// shift) needs each kernel to run at each edge, not at every pair. The
// Debian 13 and forky legs are there for GStreamer 1.26 and 1.28 and their
// compilers, not for more of the same CPU arithmetic. There these sweeps
// take one case in n, chosen by the sum of the case's indices (geometry,
// input, output...) so that each pair still runs at some geometries and
// each geometry meets every format; the host leg runs them whole.
#pragma once

#include <cstdlib>
#include <cstring>

namespace ef::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// Under a sanitizer, or where EF_TEST_SWEEPS=sample (scripts/test.sh sets
// it in the Debian 13 and forky legs).
inline bool sweeps_sampled() {
  static const bool sampled = [] {
    const char *v = std::getenv("EF_TEST_SWEEPS");
    return kSanitized || (v && std::strcmp(v, "sample") == 0);
  }();
  return sampled;
}

// One case in n where sweeps are sampled (those whose indices sum to a
// multiple of n), every case otherwise.
class OneIn {
 public:
  explicit OneIn(unsigned n) : n_(sweeps_sampled() ? n : 1) {}
  template <typename... Index>
  bool take(Index... index) const {
    return (static_cast<unsigned long>(index) + ...) % n_ == 0;
  }
  unsigned n() const { return n_; }

 private:
  unsigned n_;
};

}  // namespace ef::test
