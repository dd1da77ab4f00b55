// SPDX-License-Identifier: LGPL-2.1-or-later
// A tensor's value of each 8-bit channel value, one definition for every
// backend: the CPU kernel tables it, the GL pass looks it up in a buffer
// of these tables, so both give the same value for the same 8-bit level.
// Per channel c of the tensor (its own order): float (x - mean[c]) /
// std[c] in double precision, rounded once to the type (float16: to
// nearest even, as F16C); int8 and uint8
// clamp(round(((x - mean) / std) / quant_scale) + zero_point), half to
// even, clamped to the type.
#pragma once

#include <array>
#include <cstdint>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

// IEEE half precision of `f`, rounded to nearest even (F16C's rounding;
// tensor_formula.hpp).
uint16_t half_of(float f);

// The bits of channel c's value of level x: a float32's 32 bits, a
// float16's 16, an int8's or uint8's 8 (an int8 as its two's complement
// byte), in the low bits.
uint32_t tensor_value_bits(TensorType type, const TensorNorm &norm, unsigned c, unsigned x);

// Every level of the three channels: [c * 256 + x].
using TensorValueTable = std::array<uint32_t, 3 * 256>;
TensorValueTable tensor_value_table(TensorType type, const TensorNorm &norm);

}  // namespace ef::gst
