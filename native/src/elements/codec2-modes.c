#include "codec2-modes.h"
#include <gst/gst.h>
#include <codec2.h>

static const EncoderdCodec2Mode modes[] = {
  { 3200, CODEC2_MODE_3200, "3200", 64, 8, 160 },
  { 2400, CODEC2_MODE_2400, "2400", 48, 6, 160 },
  { 1600, CODEC2_MODE_1600, "1600", 64, 8, 320 },
  { 1400, CODEC2_MODE_1400, "1400", 56, 7, 320 },
  { 1300, CODEC2_MODE_1300, "1300", 52, 7, 320 },
  { 1200, CODEC2_MODE_1200, "1200", 48, 6, 320 },
  { 700, CODEC2_MODE_700C, "700C", 28, 4, 320 },
};

const EncoderdCodec2Mode *encoderd_codec2_mode_from_bps(gint bps) {
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++)
    if (modes[i].bps == bps) return &modes[i];
  return NULL;
}

const EncoderdCodec2Mode *encoderd_codec2_mode_from_name(const gchar *name) {
  if (name == NULL) return NULL;
  for (guint i = 0; i < G_N_ELEMENTS(modes); i++)
    if (g_ascii_strcasecmp(modes[i].name, name) == 0) return &modes[i];
  /* plain digits: "700" for 700C */
  gchar *end = NULL;
  gint64 v = g_ascii_strtoll(name, &end, 10);
  if (end != name && *end == '\0' && v > 0 && v < G_MAXINT) return encoderd_codec2_mode_from_bps((gint)v);
  return NULL;
}

guint64 encoderd_codec2_frame_duration(const EncoderdCodec2Mode *m) {
  return gst_util_uint64_scale_int(m->samples_per_frame, GST_SECOND, ENCODERD_CODEC2_RATE);
}

/* libcodec2's state, freed on every return that does not hand it on. */
typedef struct CODEC2 Codec2State;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Codec2State, codec2_destroy)

struct CODEC2 *encoderd_codec2_open(gpointer owner, const EncoderdCodec2Mode *m) {
  g_autoptr(Codec2State) c2 = codec2_create(m->c2mode);
  if (c2 == NULL) {
    GST_ERROR_OBJECT(owner, "codec2_create(%s) failed", m->name);
    return NULL;
  }
  if (codec2_samples_per_frame(c2) != m->samples_per_frame || codec2_bytes_per_frame(c2) != m->bytes_per_frame) {
    GST_ERROR_OBJECT(owner, "libcodec2 disagrees with the mode table for %s", m->name);
    return NULL;
  }
  return g_steal_pointer(&c2);
}

const EncoderdCodec2Mode *encoderd_codec2_mode_from_caps(gpointer owner, const GstCaps *caps) {
  const GstStructure *s = gst_caps_get_structure(caps, 0);
  gint bps = ENCODERD_CODEC2_DEFAULT_MODE;
  if (gst_structure_has_field(s, "mode") && !gst_structure_get_int(s, "mode", &bps)) {
    GST_ERROR_OBJECT(owner, "mode in %" GST_PTR_FORMAT " is not a fixed integer", caps);
    return NULL;
  }
  const EncoderdCodec2Mode *m = encoderd_codec2_mode_from_bps(bps);
  if (m == NULL) GST_ERROR_OBJECT(owner, "unsupported Codec2 mode %d", bps);
  return m;
}
