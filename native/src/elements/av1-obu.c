/* AV1 OBU helpers for the RTP payloader and depayloader. See av1-obu.h. */
#include "av1-obu.h"

guint encoderd_av1_leb128_read(const guint8 *data, gsize len, guint64 *value) {
  guint64 v = 0;
  for (guint i = 0; i < ENCODERD_AV1_LEB128_MAX && i < len; i++) {
    v |= (guint64)(data[i] & 0x7f) << (7 * i);
    if (!(data[i] & 0x80)) {
      if (v > G_MAXUINT32) return 0; /* obu_size / element length never exceeds 2^32-1 */
      *value = v;
      return i + 1;
    }
  }
  return 0;
}

guint encoderd_av1_leb128_size(guint64 value) {
  guint n = 1;
  while (value >= 0x80) {
    value >>= 7;
    n++;
  }
  return n;
}

guint encoderd_av1_leb128_write(guint8 *out, guint64 value) {
  guint n = 0;
  do {
    guint8 b = value & 0x7f;
    value >>= 7;
    out[n++] = b | (value ? 0x80 : 0);
  } while (value && n < ENCODERD_AV1_LEB128_MAX);
  return n;
}

gboolean encoderd_av1_obu_parse(const guint8 *data, gsize len, EncoderdAv1Obu *obu) {
  gsize pos;
  if (len < 1) return FALSE;
  obu->header = data[0];
  if (obu->header & ENCODERD_AV1_OBU_FORBIDDEN) return FALSE;
  obu->type = ENCODERD_AV1_OBU_TYPE(obu->header);
  obu->header_len = (obu->header & ENCODERD_AV1_OBU_EXT_FLAG) ? 2 : 1;
  if (len < obu->header_len) return FALSE;
  obu->ext = obu->header_len == 2 ? data[1] : 0;
  pos = obu->header_len;
  if (obu->header & ENCODERD_AV1_OBU_HAS_SIZE) {
    guint64 size;
    guint n = encoderd_av1_leb128_read(data + pos, len - pos, &size);
    if (n == 0) return FALSE;
    pos += n;
    if (size > len - pos) return FALSE;
    obu->payload_len = (gsize)size;
  } else {
    /* No size field: the OBU runs to the end of the buffer (AV1 spec §5.2, allowed for the last OBU). */
    obu->payload_len = len - pos;
  }
  obu->payload = data + pos;
  obu->total_len = pos + obu->payload_len;
  return TRUE;
}

gboolean encoderd_av1_seq_reduced_still_picture(const guint8 *payload, gsize len, gboolean *reduced) {
  /* sequence_header_obu(): seq_profile f(3), still_picture f(1), reduced_still_picture_header f(1). */
  if (len < 1) return FALSE;
  *reduced = (payload[0] >> 3) & 1;
  return TRUE;
}

gboolean encoderd_av1_frame_is_key(const guint8 *payload, gsize len, gboolean reduced_still_picture, gboolean *is_key) {
  /* uncompressed_header(): with reduced_still_picture_header every frame is a key frame; otherwise the
   * first bits are show_existing_frame f(1) then frame_type f(2), KEY_FRAME == 0. */
  if (reduced_still_picture) {
    *is_key = TRUE;
    return TRUE;
  }
  if (len < 1) return FALSE;
  if (payload[0] & 0x80) { /* show_existing_frame: re-shows a decoded frame, starts nothing new */
    *is_key = FALSE;
    return TRUE;
  }
  *is_key = ((payload[0] >> 5) & 0x03) == 0;
  return TRUE;
}
