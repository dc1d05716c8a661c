/* Entry point of the standalone plugin file (libgstencoderd.so), so that any GStreamer receiver can use
 * rtpav1depay, codec2dec and friends through GST_PLUGIN_PATH. Not linked into the addon. */
#include "elements.h"

#define PACKAGE "encoderd"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, encoderd,
                  "Elements encoderd adds to GStreamer 1.22: AV1 RTP, Codec2 and its RTP payload; the relay's DTS guard",
                  encoderd_elements_init, ENCODERD_PLUGIN_VERSION, ENCODERD_PLUGIN_LICENSE, "encoderd",
                  "https://localhost/encoderd")
