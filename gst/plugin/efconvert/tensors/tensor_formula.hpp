// SPDX-License-Identifier: LGPL-2.1-or-later
// The arithmetic of a tensor's values (tensor_values.hpp), written once in
// the C++ every compiler of the project takes: the host's, and a GPU
// pass's device compiler, where there is no C library (hence no headers
// here, and constexpr: clang's CUDA compile takes constexpr functions for
// the device too). The backends that table the values (CPU, GL) and those
// that compute them per pixel get the same bits from the same code.
#pragma once

namespace ef::gst::tensor_formula {

// IEEE half precision of `f`, rounded to nearest even (F16C's rounding);
// NaNs stay NaNs (quiet), infinities and overflows infinities.
constexpr unsigned short half_bits(float f) {
  const unsigned int x = __builtin_bit_cast(unsigned int, f);
  const unsigned int sign = (x >> 16) & 0x8000u;
  const int biased = int((x >> 23) & 0xffu);
  unsigned int mant = x & 0x7fffffu;
  if (biased == 0xff)
    return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
  const int exp = biased - 127 + 15;
  if (exp >= 31)
    return (unsigned short)(sign | 0x7c00u);
  if (exp <= 0) {  // a subnormal half, or zero
    if (exp < -10)
      return (unsigned short)sign;
    mant |= 0x800000u;
    const int shift = 14 - exp;
    unsigned int h = mant >> shift;
    const unsigned int rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
      ++h;
    return (unsigned short)(sign | h);
  }
  unsigned int h = sign | (unsigned int)exp << 10 | mant >> 13;
  const unsigned int rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;  // a carry into the exponent is the right rounding too
  return (unsigned short)h;
}

// (x - mean) / stddev, in this order, in double: the formula of every
// tensor type.
constexpr double normalised(double x, double mean, double stddev) {
  return (x - mean) / stddev;
}

// t rounded to an integer, half to even (as rint in the default rounding
// mode): below 2^51 the sum's rounding to a multiple of 1 does it; above,
// every double is an integer.
constexpr double round_even(double t) {
  constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
  return t < 2251799813685248.0 && t > -2251799813685248.0 ? (t + kMagic) - kMagic : t;
}

// An int8's or uint8's value of normalised value v: round(v / scale) +
// zero_point, half to even, clamped to [low, high].
constexpr int quantised(double v, double scale, int zero_point, int low, int high) {
  const double q = round_even(v / scale) + double(zero_point);
  return q < double(low) ? low : q > double(high) ? high : int(q);
}

}  // namespace ef::gst::tensor_formula
