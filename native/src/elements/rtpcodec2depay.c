/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_rtpcodec2depay(GstPlugin *plugin) { return TRUE; }
