/* codec2enc: Codec2 speech encoder over libcodec2 (GstAudioEncoder).
 *
 *   sink: audio/x-raw, format=S16LE, rate=8000, channels=1, layout=interleaved
 *   src:  audio/x-codec2, mode=(int){3200,2400,1600,1400,1300,1200,700}   (700 = 700C)
 *   property mode (int, bits per second, default 2400): read when the input caps are set.
 *
 * One Codec2 frame (codec2_bytes_per_frame bytes) per output buffer; a trailing partial frame at EOS is
 * dropped, as libcodec2's own c2enc does. Timestamps and durations come from GstAudioEncoder. */
#include "elements.h"
#include "codec2-modes.h"
#include <gst/audio/gstaudioencoder.h>
#include <codec2.h>

GST_DEBUG_CATEGORY_STATIC(codec2enc_debug);
#define GST_CAT_DEFAULT codec2enc_debug

#define ENCODERD_TYPE_CODEC2ENC (encoderd_codec2enc_get_type())
G_DECLARE_FINAL_TYPE(EncoderdCodec2Enc, encoderd_codec2enc, ENCODERD, CODEC2ENC, GstAudioEncoder)

struct _EncoderdCodec2Enc {
  GstAudioEncoder parent;
  gint mode_bps;                  /* property */
  struct CODEC2 *c2;              /* NULL until set_format */
  const EncoderdCodec2Mode *mode; /* mode of c2 */
};

G_DEFINE_TYPE(EncoderdCodec2Enc, encoderd_codec2enc, GST_TYPE_AUDIO_ENCODER)

enum { PROP_0, PROP_MODE };

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-raw, format=(string)S16LE, rate=(int)8000, channels=(int)1, layout=(string)interleaved"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-codec2, mode=" ENCODERD_CODEC2_MODE_LIST));

static void free_codec(EncoderdCodec2Enc *self) {
  if (self->c2) codec2_destroy(self->c2);
  self->c2 = NULL;
  self->mode = NULL;
}

static gboolean enc_stop(GstAudioEncoder *enc) {
  GST_OBJECT_LOCK(enc);
  free_codec(ENCODERD_CODEC2ENC(enc));
  GST_OBJECT_UNLOCK(enc);
  return TRUE;
}

static gboolean enc_set_format(GstAudioEncoder *enc, GstAudioInfo *info) {
  EncoderdCodec2Enc *self = ENCODERD_CODEC2ENC(enc);
  GST_OBJECT_LOCK(self);
  const EncoderdCodec2Mode *m = encoderd_codec2_mode_from_bps(self->mode_bps);
  GST_OBJECT_UNLOCK(self);
  if (m == NULL) m = encoderd_codec2_mode_from_bps(ENCODERD_CODEC2_DEFAULT_MODE);

  if (GST_AUDIO_INFO_RATE(info) != ENCODERD_CODEC2_RATE || GST_AUDIO_INFO_CHANNELS(info) != 1) {
    GST_ERROR_OBJECT(self, "need 8000 Hz mono, got %d Hz %d channels", GST_AUDIO_INFO_RATE(info),
                     GST_AUDIO_INFO_CHANNELS(info));
    return FALSE;
  }
  /* Draining is a no-op (hard minimum), so a new format can simply replace the state. */
  struct CODEC2 *c2 = encoderd_codec2_open(self, m);
  if (c2 == NULL) return FALSE;
  GST_OBJECT_LOCK(self);
  free_codec(self);
  self->c2 = c2;
  self->mode = m;
  GST_OBJECT_UNLOCK(self);

  GstCaps *caps = gst_caps_new_simple("audio/x-codec2", "mode", G_TYPE_INT, m->bps, NULL);
  gboolean ok = gst_audio_encoder_set_output_format(enc, caps);
  gst_caps_unref(caps);
  if (!ok) {
    GST_ERROR_OBJECT(self, "downstream refused audio/x-codec2, mode=%d", m->bps);
    return FALSE;
  }
  gst_audio_encoder_set_frame_samples_min(enc, m->samples_per_frame);
  gst_audio_encoder_set_frame_samples_max(enc, m->samples_per_frame);
  gst_audio_encoder_set_frame_max(enc, 1);
  gst_audio_encoder_set_hard_min(enc, TRUE);
  /* a frame is encoded once its last sample is in: one frame of latency */
  GstClockTime dur = encoderd_codec2_frame_duration(m);
  gst_audio_encoder_set_latency(enc, dur, dur);
  GST_INFO_OBJECT(self, "mode %s: %d bytes per %d samples", m->name, m->bytes_per_frame, m->samples_per_frame);
  return TRUE;
}

static GstFlowReturn enc_handle_frame(GstAudioEncoder *enc, GstBuffer *in) {
  EncoderdCodec2Enc *self = ENCODERD_CODEC2ENC(enc);
  if (in == NULL) return GST_FLOW_OK; /* drain: nothing is held back */
  if (self->c2 == NULL) return GST_FLOW_NOT_NEGOTIATED;
  const EncoderdCodec2Mode *m = self->mode;

  GstMapInfo map;
  if (!gst_buffer_map(in, &map, GST_MAP_READ)) return GST_FLOW_ERROR;
  if (map.size != (gsize)m->samples_per_frame * 2) {
    /* cannot happen with hard_min and frame_samples_min == max */
    GST_WARNING_OBJECT(self, "got %" G_GSIZE_FORMAT " bytes, want %d; dropping", map.size, m->samples_per_frame * 2);
    gst_buffer_unmap(in, &map);
    return gst_audio_encoder_finish_frame(enc, NULL, map.size / 2);
  }
  g_autoptr(GstBuffer) out = gst_audio_encoder_allocate_output_buffer(enc, m->bytes_per_frame);
  GstMapInfo omap;
  if (out == NULL || !gst_buffer_map(out, &omap, GST_MAP_WRITE)) {
    gst_buffer_unmap(in, &map);
    return GST_FLOW_ERROR;
  }
  short speech[640];
  memcpy(speech, map.data, map.size); /* aligned copy; S16LE == host order on our targets */
#if G_BYTE_ORDER == G_BIG_ENDIAN
  for (gint i = 0; i < m->samples_per_frame; i++) speech[i] = GUINT16_SWAP_LE_BE(speech[i]);
#endif
  codec2_encode(self->c2, omap.data, speech);
  gst_buffer_unmap(out, &omap);
  gst_buffer_unmap(in, &map);
  return gst_audio_encoder_finish_frame(enc, g_steal_pointer(&out), m->samples_per_frame);
}

static void enc_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
  EncoderdCodec2Enc *self = ENCODERD_CODEC2ENC(obj);
  switch (id) {
    case PROP_MODE: {
      gint bps = g_value_get_int(value);
      if (encoderd_codec2_mode_from_bps(bps) == NULL) {
        g_warning("codec2enc: unsupported mode %d (use 3200, 2400, 1600, 1400, 1300, 1200 or 700); keeping %d", bps,
                  self->mode_bps);
        break;
      }
      GST_OBJECT_LOCK(self);
      self->mode_bps = bps;
      GST_OBJECT_UNLOCK(self);
      break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
  }
}

static void enc_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
  EncoderdCodec2Enc *self = ENCODERD_CODEC2ENC(obj);
  switch (id) {
    case PROP_MODE:
      GST_OBJECT_LOCK(self);
      g_value_set_int(value, self->mode_bps);
      GST_OBJECT_UNLOCK(self);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
  }
}

static void enc_finalize(GObject *obj) {
  free_codec(ENCODERD_CODEC2ENC(obj));
  G_OBJECT_CLASS(encoderd_codec2enc_parent_class)->finalize(obj);
}

static void encoderd_codec2enc_class_init(EncoderdCodec2EncClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstAudioEncoderClass *enc_class = GST_AUDIO_ENCODER_CLASS(klass);

  gobject_class->set_property = enc_set_property;
  gobject_class->get_property = enc_get_property;
  gobject_class->finalize = enc_finalize;
  g_object_class_install_property(gobject_class, PROP_MODE,
      g_param_spec_int("mode", "Mode",
                       "Codec2 mode in bits per second: 3200, 2400, 1600, 1400, 1300, 1200 or 700 (700C); "
                       "read when the stream starts",
                       700, 3200, ENCODERD_CODEC2_DEFAULT_MODE,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "Codec2 encoder", "Codec/Encoder/Audio",
                                        "Encodes 8 kHz mono speech with libcodec2", "encoderd");

  enc_class->stop = GST_DEBUG_FUNCPTR(enc_stop);
  enc_class->set_format = GST_DEBUG_FUNCPTR(enc_set_format);
  enc_class->handle_frame = GST_DEBUG_FUNCPTR(enc_handle_frame);

  GST_DEBUG_CATEGORY_INIT(codec2enc_debug, "codec2enc", 0, "Codec2 encoder");
}

static void encoderd_codec2enc_init(EncoderdCodec2Enc *self) {
  self->mode_bps = ENCODERD_CODEC2_DEFAULT_MODE;
  GST_PAD_SET_ACCEPT_TEMPLATE(GST_AUDIO_ENCODER_SINK_PAD(self));
}

gboolean encoderd_register_codec2enc(GstPlugin *plugin) {
  return gst_element_register(plugin, "codec2enc", GST_RANK_SECONDARY, ENCODERD_TYPE_CODEC2ENC);
}
