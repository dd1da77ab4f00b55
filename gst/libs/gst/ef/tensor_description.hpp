// SPDX-License-Identifier: LGPL-2.1-or-later
// Inside libgstef-1.0 only (not installed): what a tensor is (its shape,
// outermost first, and its element type as DLPack codes it), read from
// NNStreamer's static tensor caps or from a GstEfTensorMeta.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <string>
#include <variant>

#include "gst/ef/gsteftensormeta.h"

namespace ef::gst {

// NNStreamer's rank limit (NNS_TENSOR_RANK_LIMIT).
inline constexpr unsigned kMaxTensorRank = 16;

struct TensorDescription {
  unsigned ndim = 0;
  int64_t shape[kMaxTensorRank] = {};
  uint8_t code = 0;  // DLDataTypeCode
  uint8_t bits = 0;

  // Contiguous row-major strides, in elements.
  void strides(int64_t out[kMaxTensorRank]) const;
  // The bytes the elements take.
  uint64_t bytes() const;
};

// A description, or what is wrong with the caps: a GstEfTensorViewError code
// and a message naming the field.
struct DescriptionError {
  int code;
  std::string message;
};
using DescriptionResult = std::variant<TensorDescription, DescriptionError>;

// `other/tensors, format=static, num_tensors=1, types=T, dimensions=D` (its
// first structure); D innermost first, as NNStreamer writes it.
DescriptionResult describe_caps(const GstCaps *caps);

// The tensor a GstEfTensorMeta carries: (1, H, W, C) or (1, C, H, W).
TensorDescription describe_meta(const GstEfTensorMeta *meta);

}  // namespace ef::gst
