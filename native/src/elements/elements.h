/* The GStreamer elements bookworm's 1.22 lacks, and dtsguard. Each file registers one element; elements.c
 * registers them all, both into the addon (statically) and into the standalone plugin file. */
#ifndef ENCODERD_ELEMENTS_H
#define ENCODERD_ELEMENTS_H
#include <gst/gst.h>

gboolean encoderd_register_rtpav1pay(GstPlugin *plugin);
gboolean encoderd_register_rtpav1depay(GstPlugin *plugin);
gboolean encoderd_register_codec2enc(GstPlugin *plugin);
gboolean encoderd_register_codec2dec(GstPlugin *plugin);
gboolean encoderd_register_rtpcodec2pay(GstPlugin *plugin);
gboolean encoderd_register_rtpcodec2depay(GstPlugin *plugin);
/* Not a missing element: the relay's own timing guard for passed-through streams (docs/dataplane.md). */
gboolean encoderd_register_dtsguard(GstPlugin *plugin);

/* Registers every element above into plugin (NULL = static registration). */
gboolean encoderd_elements_init(GstPlugin *plugin);

#define ENCODERD_PLUGIN_VERSION "0.1.0"
#define ENCODERD_PLUGIN_LICENSE "LGPL"
#endif
