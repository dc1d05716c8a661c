/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_rtpav1pay(GstPlugin *plugin) { return TRUE; }
