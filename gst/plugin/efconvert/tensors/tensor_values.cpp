// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_values.hpp"

#include <cstring>

#include "tensor_formula.hpp"

namespace ef::gst {

uint16_t half_of(float f) {
  return tensor_formula::half_bits(f);
}

uint32_t tensor_value_bits(TensorType type, const TensorNorm &norm, unsigned c, unsigned x) {
  const double v = tensor_formula::normalised(double(x), norm.mean[c], norm.stddev[c]);
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
      const int low = type == TensorType::Int8 ? -128 : 0;
      const int high = type == TensorType::Int8 ? 127 : 255;
      // int8: the same bits
      return uint8_t(tensor_formula::quantised(v, norm.quant_scale, norm.zero_point, low, high));
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
