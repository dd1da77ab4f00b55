/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef __GST_EF_VK_BRIDGE_H__
#define __GST_EF_VK_BRIDGE_H__

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_VK_BRIDGE (gst_ef_vk_bridge_get_type())
G_DECLARE_FINAL_TYPE(GstEfVkBridge, gst_ef_vk_bridge, GST, EF_VK_BRIDGE, GstBaseTransform)
GST_ELEMENT_REGISTER_DECLARE(efvkbridge);

G_END_DECLS

#endif
