// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer finds a plugin's description by its file's name: this test
// plugin's file is libgstefcopy.so (its target must not be named gstef,
// which `meson compile gstef` names), and the plugin it describes is "ef".
#include <gst/gst.h>

const GstPluginDesc *gst_plugin_ef_get_desc(void);
GST_PLUGIN_EXPORT const GstPluginDesc *gst_plugin_efcopy_get_desc(void);

const GstPluginDesc *gst_plugin_efcopy_get_desc(void) {
  return gst_plugin_ef_get_desc();
}
