/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_rtpav1depay(GstPlugin *plugin) { return TRUE; }
