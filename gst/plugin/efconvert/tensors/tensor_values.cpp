// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ef::gst {

uint16_t half_of(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const int biased = int((x >> 23) & 0xffu);
  uint32_t mant = x & 0x7fffffu;
  if (biased == 0xff)
    return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
  const int exp = biased - 127 + 15;
  if (exp >= 31)
    return uint16_t(sign | 0x7c00u);
  if (exp <= 0) {  // a subnormal half, or zero
    if (exp < -10)
      return uint16_t(sign);
    mant |= 0x800000u;
    const int shift = 14 - exp;
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
      ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = sign | uint32_t(exp) << 10 | mant >> 13;
  const uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
    ++h;  // a carry into the exponent is the right rounding too
  return uint16_t(h);
}

uint32_t tensor_value_bits(TensorType type, const TensorNorm &norm, unsigned c, unsigned x) {
  const double v = (double(x) - norm.mean[c]) / norm.stddev[c];  // the formula, in this order
  switch (type) {
    case TensorType::Float32: {
      const float f = float(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
    case TensorType::Float16:
      return half_of(float(v));
    default: {
      const double low = type == TensorType::Int8 ? -128 : 0;
      const double high = type == TensorType::Int8 ? 127 : 255;
      const double q =
          std::clamp(std::nearbyint(v / norm.quant_scale) + norm.zero_point, low, high);
      return uint8_t(int(q));  // int8: the same bits
    }
  }
}

TensorValueTable tensor_value_table(TensorType type, const TensorNorm &norm) {
  TensorValueTable table{};
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned x = 0; x < 256; ++x)
      table[c * 256 + x] = tensor_value_bits(type, norm, c, x);
  return table;
}

}  // namespace ef::gst
