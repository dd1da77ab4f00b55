/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* efconvert's property enums (the backend's is the registry's:
 * backend_registry.hpp), apart from the element's header so that its
 * settings and state need not include the element. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_CONVERT_METHOD (gst_ef_convert_method_get_type())
GType gst_ef_convert_method_get_type(void);
#define GST_TYPE_EF_CONVERT_GL_SHADER (gst_ef_convert_gl_shader_get_type())
GType gst_ef_convert_gl_shader_get_type(void);
#define GST_TYPE_EF_CONVERT_CHANNEL_ORDER (gst_ef_convert_channel_order_get_type())
GType gst_ef_convert_channel_order_get_type(void);

/* The numbers and nicks of GstVideoScaleMethod (videoscale,
 * videoconvertscale) for the filters efconvert has. */
typedef enum {
  GST_EF_CONVERT_METHOD_NEAREST = 0,
  GST_EF_CONVERT_METHOD_BILINEAR = 1,
} GstEfConvertMethod;

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
