/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_CONVERT (gst_ef_convert_get_type())
G_DECLARE_FINAL_TYPE(GstEfConvert, gst_ef_convert, GST, EF_CONVERT, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(efconvert);

#define GST_TYPE_EF_CONVERT_BACKEND (gst_ef_convert_backend_get_type())
GType gst_ef_convert_backend_get_type(void);
#define GST_TYPE_EF_CONVERT_METHOD (gst_ef_convert_method_get_type())
GType gst_ef_convert_method_get_type(void);
#define GST_TYPE_EF_CONVERT_GL_SHADER (gst_ef_convert_gl_shader_get_type())
GType gst_ef_convert_gl_shader_get_type(void);

typedef enum {
  GST_EF_CONVERT_BACKEND_AUTO,
  GST_EF_CONVERT_BACKEND_GL,
  GST_EF_CONVERT_BACKEND_CPU,
  GST_EF_CONVERT_BACKEND_CUDA,
} GstEfConvertBackend;

/* The numbers and nicks of GstVideoScaleMethod (videoscale,
 * videoconvertscale) for the filters efconvert has. */
typedef enum {
  GST_EF_CONVERT_METHOD_NEAREST = 0,
  GST_EF_CONVERT_METHOD_BILINEAR = 1,
} GstEfConvertMethod;

#define GST_TYPE_EF_CONVERT_CHANNEL_ORDER (gst_ef_convert_channel_order_get_type())
GType gst_ef_convert_channel_order_get_type(void);

typedef enum {
  GST_EF_CONVERT_CHANNEL_ORDER_RGB,
  GST_EF_CONVERT_CHANNEL_ORDER_BGR,
} GstEfConvertChannelOrder;

typedef enum {
  GST_EF_CONVERT_GL_SHADER_AUTO,
  GST_EF_CONVERT_GL_SHADER_FRAGMENT,
  GST_EF_CONVERT_GL_SHADER_COMPUTE,
} GstEfConvertGlShader;

G_END_DECLS
