/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GST_EF_API: how libgstef-1.0's public symbols are declared, the way
 * gst-plugins-base's libraries do it (gl-prelude.h, allocators-prelude.h):
 * exported while the library itself is built (BUILDING_GST_EF), imported
 * by everyone else. */
#ifndef __GST_EF_PRELUDE_H__
#define __GST_EF_PRELUDE_H__

#include <gst/gst.h>

#ifndef GST_EF_API
#ifdef BUILDING_GST_EF
#define GST_EF_API GST_API_EXPORT
#else
#define GST_EF_API GST_API_IMPORT
#endif
#endif

#endif
