/* Codec2 modes shared by codec2enc, codec2dec, rtpcodec2pay and rtpcodec2depay.
 * Values are those of libcodec2 1.0.5 (codec2_bits/bytes/samples_per_frame); all modes are 8 kHz mono S16. */
#ifndef ENCODERD_CODEC2_MODES_H
#define ENCODERD_CODEC2_MODES_H
#include <gst/gst.h>

#define ENCODERD_CODEC2_RATE 8000
#define ENCODERD_CODEC2_DEFAULT_MODE 2400

typedef struct {
  gint bps;           /* the "mode" as bits per second: 3200, 2400, ..., 700 (700C) */
  gint c2mode;        /* CODEC2_MODE_* for codec2_create() */
  const gchar *name;  /* the name c2enc/c2dec and the RTP fmtp use: "3200", ..., "700C" */
  gint bits_per_frame;
  gint bytes_per_frame;
  gint samples_per_frame;
} EncoderdCodec2Mode;

/* The mode of that bit rate, or NULL if it is not supported. */
const EncoderdCodec2Mode *encoderd_codec2_mode_from_bps(gint bps);
/* The mode of that name ("2400", "700C"; "700" is accepted for 700C), or NULL. */
const EncoderdCodec2Mode *encoderd_codec2_mode_from_name(const gchar *name);
/* Duration of one frame in nanoseconds. */
guint64 encoderd_codec2_frame_duration(const EncoderdCodec2Mode *m);

/* The mode named by caps of audio/x-codec2 (the default when they name none); NULL, logged on owner, when the
 * mode field is not a fixed integer or not a supported mode. */
const EncoderdCodec2Mode *encoderd_codec2_mode_from_caps(gpointer owner, const GstCaps *caps);

struct CODEC2;
/* A libcodec2 state for the mode, checked against the table; NULL (with the reason logged on owner) on failure. */
struct CODEC2 *encoderd_codec2_open(gpointer owner, const EncoderdCodec2Mode *m);

/* Caps list of the supported modes, for pad templates: "(int){ 3200, 2400, 1600, 1400, 1300, 1200, 700 }". */
#define ENCODERD_CODEC2_MODE_LIST "(int){ 3200, 2400, 1600, 1400, 1300, 1200, 700 }"
#endif
