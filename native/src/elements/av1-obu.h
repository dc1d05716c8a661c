/* Minimal AV1 OBU helpers shared by rtpav1pay and rtpav1depay: leb128 and the OBU header of the
 * low-overhead bitstream format (AV1 spec §5.3). Only what RTP packetization needs: no full parser.
 * Every symbol is prefixed encoderd_av1_ because all element files are linked into one object. */
#ifndef ENCODERD_AV1_OBU_H
#define ENCODERD_AV1_OBU_H
#include <glib.h>

/* OBU types (AV1 spec §6.2.2). */
enum {
  ENCODERD_AV1_OBU_SEQUENCE_HEADER = 1,
  ENCODERD_AV1_OBU_TEMPORAL_DELIMITER = 2,
  ENCODERD_AV1_OBU_FRAME_HEADER = 3,
  ENCODERD_AV1_OBU_TILE_GROUP = 4,
  ENCODERD_AV1_OBU_METADATA = 5,
  ENCODERD_AV1_OBU_FRAME = 6,
  ENCODERD_AV1_OBU_REDUNDANT_FRAME_HEADER = 7,
  ENCODERD_AV1_OBU_TILE_LIST = 8,
  ENCODERD_AV1_OBU_PADDING = 15,
};

/* OBU header byte: |forbidden(1)|type(4)|extension_flag(1)|has_size_field(1)|reserved(1)| */
#define ENCODERD_AV1_OBU_FORBIDDEN 0x80
#define ENCODERD_AV1_OBU_EXT_FLAG 0x04
#define ENCODERD_AV1_OBU_HAS_SIZE 0x02
#define ENCODERD_AV1_OBU_TYPE(hdr) (((hdr) >> 3) & 0x0f)

/* The AV1 spec caps leb128 at 8 bytes, and obu_size at 2^32-1. */
#define ENCODERD_AV1_LEB128_MAX 8

/* One OBU located in a buffer. header_len is 1 or 2 (extension byte); payload excludes header and size field. */
typedef struct {
  guint8 header;      /* the first header byte, as found (has_size_field untouched) */
  guint8 ext;         /* the extension byte, valid when header_len == 2 */
  guint header_len;   /* 1 or 2 */
  guint type;
  const guint8 *payload;
  gsize payload_len;
  gsize total_len;    /* bytes consumed from the input: header + size field + payload */
} EncoderdAv1Obu;

/* Reads a leb128 value. Returns the number of bytes used, or 0 when truncated or longer than 8 bytes
 * or the value exceeds 32 bits (AV1 limits obu_size to 2^32-1). */
guint encoderd_av1_leb128_read(const guint8 *data, gsize len, guint64 *value);
/* Bytes needed to encode value as leb128 (minimal form). */
guint encoderd_av1_leb128_size(guint64 value);
/* Writes value in minimal leb128 form; out must hold ENCODERD_AV1_LEB128_MAX bytes. Returns bytes written. */
guint encoderd_av1_leb128_write(guint8 *out, guint64 value);

/* Parses the OBU at data (low-overhead format). An OBU without obu_size extends to the end of data, as the
 * spec allows for the last OBU of a buffer. Returns FALSE on a forbidden bit or truncated data. */
gboolean encoderd_av1_obu_parse(const guint8 *data, gsize len, EncoderdAv1Obu *obu);

/* From the payload of a sequence header OBU: reduced_still_picture_header (needed to read frame_type). */
gboolean encoderd_av1_seq_reduced_still_picture(const guint8 *payload, gsize len, gboolean *reduced);

/* From the payload of a FRAME or FRAME_HEADER OBU: whether it starts a key frame (frame_type == KEY_FRAME
 * and not show_existing_frame). reduced_still_picture_header comes from the sequence header. */
gboolean encoderd_av1_frame_is_key(const guint8 *payload, gsize len, gboolean reduced_still_picture, gboolean *is_key);

#endif
