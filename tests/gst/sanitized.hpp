// SPDX-License-Identifier: LGPL-2.1-or-later
// The widest pixel sweeps under a sanitizer. ASan's instrumentation makes
// the converters several times slower, and a sweep of every format pair at
// every geometry then passes Check's time limit (cpu_bands did, at 600 s).
// What a sanitizer finds (an access past a row, a band's edge, an
// undefined shift) needs each kernel to run at each edge, not at every
// pair: under one, these sweeps take one case in n, chosen by the sum of
// the case's indices (geometry, input, output...) so that each pair still
// runs at some geometries and each geometry meets every format; the normal
// builds (the host and every Debian leg) run them whole.
#pragma once

namespace ef::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// One case in n under a sanitizer (those whose indices sum to a multiple
// of n), every case otherwise.
class OneIn {
 public:
  explicit constexpr OneIn(unsigned n) : n_(kSanitized ? n : 1) {}
  template <typename... Index>
  constexpr bool take(Index... index) const {
    return (static_cast<unsigned long>(index) + ...) % n_ == 0;
  }
  constexpr unsigned n() const { return n_; }

 private:
  unsigned n_;
};

}  // namespace ef::test
