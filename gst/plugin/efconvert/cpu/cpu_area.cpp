// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_area.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

// GCC vectorizes the row loops only with its full cost model (-O2 has the
// "very cheap" one), as in cpu_range.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#define EF_VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define EF_VECTORIZE
#endif

namespace ef::gst::cpu {
namespace {

int64_t floor_div(int64_t a, int64_t b) {  // b > 0
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The samples each output of one axis weighs: `n` weights an output from
// sample first[i] on (zero where it has fewer), summing to `total`.
struct Taps {
  std::vector<int32_t> first;
  std::vector<uint32_t> weights;
  int n = 0;
  uint32_t total = 0;
};

// Taps of outputs [o0, o1) of `a`. Positions are counted in units of
// 1 / (4 * sub * out) sample, in which every footprint edge and every
// site is a whole number: a footprint is 4 * span units long and a site a
// quarter sample (2 * out units) from the centre. Parts of a footprint
// before the first sample or past the last count for that sample, as the
// box reference and the GL backend read them (a clamped fetch).
void make_taps(const Axis &a, int o0, int o1, Taps &t) {
  const int64_t unit = 4 * int64_t(a.sub) * a.out;
  const int64_t length = 4 * int64_t(a.span);
  const int64_t offset = a.sub == 2 ? 2 * int64_t(a.site) * a.out : 0;
  const int last = a.samples - 1;
  t.n = a.area ? int((length + unit - 1) / unit) + 1 : 2;
  t.total = uint32_t(a.area ? length : unit);
  t.first.resize(size_t(o1 - o0));
  t.weights.assign(size_t(o1 - o0) * t.n, 0);
  for (int i = o0; i < o1; ++i) {
    uint32_t *w = &t.weights[size_t(i - o0) * t.n];
    const int64_t lo = i * length + offset, hi = lo + length;
    if (a.area) {
      const int64_t k0 = floor_div(lo, unit), k1 = floor_div(hi - 1, unit);
      const int first = int(std::clamp<int64_t>(k0, 0, last));
      for (int64_t k = k0; k <= k1; ++k) {
        const int64_t covered = std::min(hi, (k + 1) * unit) - std::max(lo, k * unit);
        w[std::clamp<int64_t>(k, 0, last) - first] += uint32_t(covered);
      }
      t.first[size_t(i - o0)] = first;
    } else {
      // Sample k sits at (k + 1/2) unit; the output's centre between two.
      const int64_t at = lo + length / 2 - unit / 2;
      const int64_t k = floor_div(at, unit), past = at - k * unit;
      const int first = int(std::clamp<int64_t>(k, 0, last));
      w[0] = uint32_t(unit - past);
      w[std::clamp<int64_t>(k + 1, 0, last) - first] += uint32_t(past);
      t.first[size_t(i - o0)] = first;
    }
  }
  // The smallest whole weights: sums stay small, most in 32 bits.
  uint32_t g = t.total;
  for (uint32_t w : t.weights)
    g = std::gcd(g, w);
  for (uint32_t &w : t.weights)
    w /= g;
  t.total /= g;
}

EF_VECTORIZE void set_weighed(const uint8_t *row, uint32_t w, uint32_t *col, int n) {
  for (int b = 0; b < n; ++b)
    col[b] = w * row[b];
}

EF_VECTORIZE void add_weighed(const uint8_t *row, uint32_t w, uint32_t *col, int n) {
  for (int b = 0; b < n; ++b)
    col[b] += w * row[b];
}

// Each byte of one output row summed down its column over the row's taps.
void weigh_rows(const uint8_t *src, int stride, const Taps &ty, int index, uint32_t *col,
                int bytes) {
  const uint32_t *w = &ty.weights[size_t(index) * ty.n];
  const uint8_t *row = src + ptrdiff_t(ty.first[size_t(index)]) * stride;
  bool first = true;
  for (int t = 0; t < ty.n; ++t, row += stride) {
    if (w[t] == 0)
      continue;  // past the last sample, or a site exactly on a sample
    (first ? set_weighed : add_weighed)(row, w[t], col, bytes);
    first = false;
  }
}

// floor(s / total + 1/2), exactly, by a multiplication: the quotient from
// a double (exact below 2^53) corrected by one where it rounded across.
class Rounder {
 public:
  explicit Rounder(uint64_t total) : total_(total), twice_(2 * total), inverse_(0.5 / total) {}
  uint8_t operator()(uint64_t sum) const {
    const uint64_t num = 2 * sum + total_;
    uint64_t q = uint64_t(double(num) * inverse_);
    if (q * twice_ > num)
      --q;
    else if ((q + 1) * twice_ <= num)
      ++q;
    return uint8_t(q);
  }

 private:
  uint64_t total_, twice_;
  double inverse_;
};

// The output row `row` from the column sums, each output across its taps.
template <typename Sum>
void weigh_columns(const uint32_t *col, const Taps &tx, int channels, const Outputs &dst, int row,
                   const Rounder &round) {
  const int outputs = int(tx.first.size());
  for (int c = 0; c < channels; ++c) {
    uint8_t *out = dst.data[size_t(c)] + ptrdiff_t(row) * dst.stride[size_t(c)];
    for (int i = 0; i < outputs; ++i) {
      const uint32_t *w = &tx.weights[size_t(i) * tx.n];
      const uint32_t *p = col + ptrdiff_t(tx.first[size_t(i)]) * channels + c;
      Sum s = 0;
      for (int t = 0; t < tx.n; ++t)
        s += Sum(w[t]) * p[t * channels];
      out[ptrdiff_t(i) * dst.step] = round(s);
    }
  }
}

}  // namespace

void resample_rows(const uint8_t *src, int src_stride, int channels, const Axis &x, const Axis &y,
                   const Outputs &dst, int r0, int r1) {
  if (r0 >= r1)
    return;
  thread_local Taps tx, ty;
  thread_local std::vector<uint32_t> col;
  make_taps(x, 0, x.out, tx);
  make_taps(y, r0, r1, ty);
  const int bytes = x.samples * channels;
  // Room past the last sample for the zero weights that pad an output's
  // taps (read, times nothing).
  const size_t room = size_t(x.samples + tx.n) * channels;
  if (col.size() < room)
    col.resize(room);
  const uint64_t total = uint64_t(tx.total) * ty.total;
  const Rounder round(total);
  // A sum fits 32 bits where 255 times every weight does.
  const bool narrow = 255 * total < (uint64_t(1) << 32);
  for (int r = r0; r < r1; ++r) {
    weigh_rows(src, src_stride, ty, r - r0, col.data(), bytes);
    if (narrow)
      weigh_columns<uint32_t>(col.data(), tx, channels, dst, r, round);
    else
      weigh_columns<uint64_t>(col.data(), tx, channels, dst, r, round);
  }
}

}  // namespace ef::gst::cpu
