/* Placeholder until the element lands: registers nothing. */
#include "elements.h"

gboolean encoderd_register_codec2dec(GstPlugin *plugin) { return TRUE; }
