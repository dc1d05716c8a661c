/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_rtpcodec2pay(GstPlugin *plugin) { return TRUE; }
