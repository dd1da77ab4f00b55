/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ef GStreamer helper library: everything an application needs to work
 * with frames of the ef elements. */
#ifndef __GST_EF_H__
#define __GST_EF_H__

#include <gst/ef/gstef-enumtypes.h>
#include <gst/ef/gsteffdallocator.h>
#include <gst/ef/gstefidentity.h>
#include <gst/ef/gstefidentitymeta.h>
#include <gst/ef/gsteftensormeta.h>
#include <gst/ef/gsteftensorview.h>
#include <gst/ef/gsteftransformmeta.h>
#include <gst/ef/gstefvkimage.h>

#endif
