/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_codec2enc(GstPlugin *plugin) { return TRUE; }
