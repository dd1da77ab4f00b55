/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <gst/base/gstbasetransform.h>

#include "convert_enums.h"

G_BEGIN_DECLS

#define GST_TYPE_EF_CONVERT (gst_ef_convert_get_type())
G_DECLARE_FINAL_TYPE(GstEfConvert, gst_ef_convert, GST, EF_CONVERT, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(efconvert);

G_END_DECLS
