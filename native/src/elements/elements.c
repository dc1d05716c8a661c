#include "elements.h"

gboolean encoderd_elements_init(GstPlugin *plugin) {
  gboolean ok = TRUE;
  ok &= encoderd_register_rtpav1pay(plugin);
  ok &= encoderd_register_rtpav1depay(plugin);
  ok &= encoderd_register_codec2enc(plugin);
  ok &= encoderd_register_codec2dec(plugin);
  ok &= encoderd_register_rtpcodec2pay(plugin);
  ok &= encoderd_register_rtpcodec2depay(plugin);
  ok &= encoderd_register_dtsguard(plugin);
  return ok;
}
