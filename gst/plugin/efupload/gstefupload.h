/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/gl/gl.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_UPLOAD (gst_ef_upload_get_type())
G_DECLARE_FINAL_TYPE(GstEfUpload, gst_ef_upload, GST, EF_UPLOAD, GstGLBaseFilter)

GST_ELEMENT_REGISTER_DECLARE(efupload);

G_END_DECLS
