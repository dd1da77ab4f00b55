// SPDX-License-Identifier: LGPL-2.1-or-later
// What the tensor tests of both backends share: content that shows
// defects (a zone plate with colour steps), the cases (type x layout x
// channel order), the normalisations each type is checked with, the
// reference formula as numpy would compute it, and reading a tensor's
// elements.
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace ef::test {

GstVideoInfo video_info(GstVideoFormat format, guint w, guint h);

// A zone plate in R (every spatial frequency up to Nyquist), colour steps
// in G and B (sharp edges every 7 and 11 pixels), converted by
// GstVideoConverter into `info`'s format.
GstBuffer *zone_plate_frame(const GstVideoInfo &info);

// An RGBA frame of `info`'s size (taken) converted by GstVideoConverter
// into `info`'s format.
GstBuffer *from_rgba(GstBuffer *rgba, const GstVideoInfo &info);

// The same in a memfd (which a GL backend imports).
GstBuffer *zone_plate_memfd(const GstVideoInfo &info);

// Caps of `info` as a string.
std::string caps_text(const GstVideoInfo &info);

// efconvert's tensor properties and the values they stand for.
struct TensorNormCase {
  std::string props;
  std::array<double, 3> mean{0, 0, 0}, stddev{1, 1, 1};
  double quant_scale = 1;
  int zero_point = 0;
};

inline const char *const kTensorTypes[] = {"float32", "float16", "uint8", "int8"};

// Per type: the defaults, and a setting that moves every value (ImageNet's
// mean and std; for int8/uint8 a scale and a zero point).
std::vector<TensorNormCase> norms_for(const std::string &type, bool gray);

struct TensorCase {
  GstVideoInfo in;
  guint w, h;
  bool letterbox;
  std::string type;
  bool nchw, bgr, gray;
};

// The five shapes of a type: NHWC RGB, NHWC BGR, NCHW RGB, NCHW BGR, one
// channel.
std::vector<TensorCase> shapes_of(const GstVideoInfo &in, guint w, guint h, bool letterbox,
                                  const std::string &type);

// NNStreamer's dimensions of the case ("3:W:H:1", "W:H:3:1").
std::string tensor_dims(const TensorCase &c);
// other/tensors caps of the case, in `feature`'s memory when given.
std::string tensor_caps(const TensorCase &c, const char *feature = nullptr);
// The properties every case sets: letterbox, a fill colour.
std::string letterbox_props(const TensorCase &c);
// The case's properties with `n`: letterbox, channel order, normalisation.
std::string tensor_props(const TensorCase &c, const TensorNormCase &n);

gsize element_bytes(const std::string &type);
bool is_quantised(const std::string &type);
// Element i of a tensor of `type` as a double.
double tensor_element(const guint8 *data, const std::string &type, gsize i);
// Index of (x, y, channel k) in the case's tensor.
gsize tensor_index(const TensorCase &c, guint x, guint y, guint k);
// The quantisation formula on the normalised value, as numpy computes it
// (np.clip(np.rint(v / scale) + zp, lo, hi): half to even).
double quantise(double normalised, const TensorNormCase &n, const std::string &type);

// One frame through `element` (a gst-launch description of efconvert and
// its properties) from `in_caps` to `out_caps`; the output buffer. Fails
// the test naming the error on the bus. `prepare`, when given, is called
// on the harness before the caps (to answer the queries they bring).
GstBuffer *convert_one(const std::string &element, const std::string &in_caps,
                       const std::string &out_caps, GstBuffer *frame,
                       const std::function<void(GstHarness *)> &prepare = {});
// A GstContext convert_one sets on every harness it makes until this is
// called again (nullptr: none); taken with a ref of its own.
void share_with_harnesses(GstContext *context);

}  // namespace ef::test
