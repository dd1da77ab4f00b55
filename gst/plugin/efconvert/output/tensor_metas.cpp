// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_metas.hpp"

#include <gst/ef/gstef.h>

#include "common/output_metas.hpp"
#ifdef EF_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

namespace ef::gst {

namespace {

static_assert(int(TensorType::Uint8) == GST_EF_TENSOR_TYPE_UINT8 &&
              int(TensorType::Int8) == GST_EF_TENSOR_TYPE_INT8 &&
              int(TensorType::Float16) == GST_EF_TENSOR_TYPE_FLOAT16 &&
              int(TensorType::Float32) == GST_EF_TENSOR_TYPE_FLOAT32);

#ifdef EF_HAVE_GST_ANALYTICS
GstTensorDataType data_type(TensorType type) {
  switch (type) {
    case TensorType::Uint8:
      return GST_TENSOR_DATA_TYPE_UINT8;
    case TensorType::Int8:
      return GST_TENSOR_DATA_TYPE_INT8;
    case TensorType::Float16:
      return GST_TENSOR_DATA_TYPE_FLOAT16;
    default:
      return GST_TENSOR_DATA_TYPE_FLOAT32;
  }
}

// A GstTensorMeta on `buffer` of one tensor of `spec` whose bytes `data`
// holds (taken): row-major dims, batch first.
void put_gst_tensor_meta(GstBuffer *buffer, GstBuffer *data, const TensorSpec &spec, GQuark id) {
  const gsize c = spec.channels, h = gsize(spec.height), w = gsize(spec.width);
  gsize nhwc[4] = {1, h, w, c}, nchw[4] = {1, c, h, w};
  GstTensor *tensor =
      gst_tensor_new_simple(id, data_type(spec.type), data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 4,
                            spec.layout == TensorLayout::Nhwc ? nhwc : nchw);
  auto **tensors = g_new(GstTensor *, 1);
  tensors[0] = tensor;
  gst_tensor_meta_set(gst_buffer_add_tensor_meta(buffer), 1, tensors);
}
#endif

}  // namespace

bool describe_output(GstBuffer *out, const ConvertParams &params) {
  put_transform_meta(out, params.crop, params.content, params.direction);
  return put_identity_meta(out, out);
}

void add_tensor_meta(GstBuffer *tensor, const TensorSpec &spec, GQuark id) {
#ifdef EF_HAVE_GST_ANALYTICS
  // Over the same memory: a buffer holding this one would hold itself.
  GstBuffer *data = gst_buffer_new();
  gst_buffer_append_memory(data, gst_buffer_get_memory(tensor, 0));
  put_gst_tensor_meta(tensor, data, spec, id);
#else
  (void)tensor;
  (void)spec;
  (void)id;
#endif
}

void attach_tensor(GstBuffer *frame, GstBuffer *tensor, const TensorSpec &spec, GQuark id) {
  gst_buffer_add_ef_tensor_meta(
      frame, tensor, GstEfTensorType(spec.type),
      spec.layout == TensorLayout::Nhwc ? GST_EF_TENSOR_LAYOUT_NHWC : GST_EF_TENSOR_LAYOUT_NCHW,
      spec.channels, guint(spec.width), guint(spec.height), id);
#ifdef EF_HAVE_GST_ANALYTICS
  put_gst_tensor_meta(frame, gst_buffer_ref(tensor), spec, id);
#endif
}

}  // namespace ef::gst
