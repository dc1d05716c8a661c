/* codec2dec: Codec2 speech decoder over libcodec2 (GstAudioDecoder).
 *
 *   sink: audio/x-codec2, mode=(int){3200,2400,1600,1400,1300,1200,700}   (mode absent = 2400)
 *   src:  audio/x-raw, format=S16LE, rate=8000, channels=1, layout=interleaved
 *
 * Input buffers may hold any number of bytes (one frame, an RTP payload of k frames, or arbitrary file
 * chunks): the parse vfunc cuts the stream into frames of codec2_bytes_per_frame. */
#include "elements.h"
#include "codec2-modes.h"
#include <gst/audio/gstaudiodecoder.h>
#include <codec2.h>

GST_DEBUG_CATEGORY_STATIC(codec2dec_debug);
#define GST_CAT_DEFAULT codec2dec_debug

#define ENCODERD_TYPE_CODEC2DEC (encoderd_codec2dec_get_type())
G_DECLARE_FINAL_TYPE(EncoderdCodec2Dec, encoderd_codec2dec, ENCODERD, CODEC2DEC, GstAudioDecoder)

struct _EncoderdCodec2Dec {
  GstAudioDecoder parent;
  struct CODEC2 *c2;
  const EncoderdCodec2Mode *mode;
};

G_DEFINE_TYPE(EncoderdCodec2Dec, encoderd_codec2dec, GST_TYPE_AUDIO_DECODER)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-codec2, mode=" ENCODERD_CODEC2_MODE_LIST "; audio/x-codec2"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-raw, format=(string)S16LE, rate=(int)8000, channels=(int)1, layout=(string)interleaved"));

static void free_codec(EncoderdCodec2Dec *self) {
  if (self->c2) codec2_destroy(self->c2);
  self->c2 = NULL;
  self->mode = NULL;
}

static gboolean dec_stop(GstAudioDecoder *dec) {
  free_codec(ENCODERD_CODEC2DEC(dec));
  return TRUE;
}

static gboolean dec_set_format(GstAudioDecoder *dec, GstCaps *caps) {
  EncoderdCodec2Dec *self = ENCODERD_CODEC2DEC(dec);
  const EncoderdCodec2Mode *m = encoderd_codec2_mode_from_caps(self, caps);
  if (m == NULL) return FALSE;
  if (self->c2 != NULL && self->mode == m) return TRUE; /* same mode again: keep the state */

  struct CODEC2 *c2 = encoderd_codec2_open(self, m);
  if (c2 == NULL) return FALSE;
  free_codec(self);
  self->c2 = c2;
  self->mode = m;

  GstAudioInfo info;
  gst_audio_info_init(&info);
  gst_audio_info_set_format(&info, GST_AUDIO_FORMAT_S16LE, ENCODERD_CODEC2_RATE, 1, NULL);
  GST_INFO_OBJECT(self, "mode %s: %d bytes per %d samples", m->name, m->bytes_per_frame, m->samples_per_frame);
  return gst_audio_decoder_set_output_format(dec, &info);
}

/* Cuts the byte stream into whole frames. */
static GstFlowReturn dec_parse(GstAudioDecoder *dec, GstAdapter *adapter, gint *offset, gint *length) {
  EncoderdCodec2Dec *self = ENCODERD_CODEC2DEC(dec);
  if (self->mode == NULL) return GST_FLOW_NOT_NEGOTIATED;
  gsize av = gst_adapter_available(adapter);
  if (av < (gsize)self->mode->bytes_per_frame) return GST_FLOW_EOS; /* need more data */
  *offset = 0;
  *length = self->mode->bytes_per_frame;
  return GST_FLOW_OK;
}

static GstFlowReturn dec_handle_frame(GstAudioDecoder *dec, GstBuffer *in) {
  EncoderdCodec2Dec *self = ENCODERD_CODEC2DEC(dec);
  if (in == NULL) return GST_FLOW_OK; /* drain: nothing held back */
  if (self->c2 == NULL) return GST_FLOW_NOT_NEGOTIATED;
  const EncoderdCodec2Mode *m = self->mode;

  GstMapInfo map;
  if (!gst_buffer_map(in, &map, GST_MAP_READ)) return GST_FLOW_ERROR;
  gsize frames = map.size / m->bytes_per_frame;
  if (map.size % m->bytes_per_frame != 0)
    GST_WARNING_OBJECT(self, "%" G_GSIZE_FORMAT " bytes is not a whole number of %d-byte frames; ignoring the rest",
                       map.size, m->bytes_per_frame);
  if (frames == 0) {
    gst_buffer_unmap(in, &map);
    return gst_audio_decoder_finish_frame(dec, NULL, 1);
  }
  g_autoptr(GstBuffer) out = gst_audio_decoder_allocate_output_buffer(dec, frames * m->samples_per_frame * 2);
  GstMapInfo omap;
  if (out == NULL || !gst_buffer_map(out, &omap, GST_MAP_WRITE)) {
    gst_buffer_unmap(in, &map);
    return GST_FLOW_ERROR;
  }
  short speech[640];
  for (gsize i = 0; i < frames; i++) {
    codec2_decode(self->c2, speech, map.data + i * m->bytes_per_frame);
#if G_BYTE_ORDER == G_BIG_ENDIAN
    for (gint j = 0; j < m->samples_per_frame; j++) speech[j] = GUINT16_SWAP_LE_BE(speech[j]);
#endif
    memcpy(omap.data + i * m->samples_per_frame * 2, speech, m->samples_per_frame * 2);
  }
  gst_buffer_unmap(out, &omap);
  gst_buffer_unmap(in, &map);
  return gst_audio_decoder_finish_frame(dec, g_steal_pointer(&out), 1);
}

/* GstAudioDecoder only takes TIME segments; a raw Codec2 file from filesrc comes with a BYTES segment.
 * Frames are of constant size and duration, so convert it (mode 2400 if the caps are not known yet). */
static gboolean dec_sink_event(GstAudioDecoder *dec, GstEvent *event) {
  EncoderdCodec2Dec *self = ENCODERD_CODEC2DEC(dec);
  if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT) {
    const GstSegment *in;
    gst_event_parse_segment(event, &in);
    if (in->format == GST_FORMAT_BYTES) {
      const EncoderdCodec2Mode *m = self->mode ? self->mode : encoderd_codec2_mode_from_bps(ENCODERD_CODEC2_DEFAULT_MODE);
      guint64 dur = encoderd_codec2_frame_duration(m);
      GstSegment seg;
      gst_segment_init(&seg, GST_FORMAT_TIME);
      seg.rate = in->rate;
      seg.start = seg.time = (in->start / m->bytes_per_frame) * dur;
      if (in->stop != (guint64)-1) seg.stop = (in->stop / m->bytes_per_frame) * dur;
      GST_DEBUG_OBJECT(self, "BYTES segment converted to %" GST_SEGMENT_FORMAT, &seg);
      guint32 seqnum = gst_event_get_seqnum(event);
      gst_event_unref(event);
      event = gst_event_new_segment(&seg);
      gst_event_set_seqnum(event, seqnum);
    }
  }
  return GST_AUDIO_DECODER_CLASS(encoderd_codec2dec_parent_class)->sink_event(dec, event);
}

static void dec_finalize(GObject *obj) {
  free_codec(ENCODERD_CODEC2DEC(obj));
  G_OBJECT_CLASS(encoderd_codec2dec_parent_class)->finalize(obj);
}

static void encoderd_codec2dec_class_init(EncoderdCodec2DecClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstAudioDecoderClass *dec_class = GST_AUDIO_DECODER_CLASS(klass);

  gobject_class->finalize = dec_finalize;
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "Codec2 decoder", "Codec/Decoder/Audio",
                                        "Decodes Codec2 to 8 kHz mono speech with libcodec2", "encoderd");
  dec_class->stop = GST_DEBUG_FUNCPTR(dec_stop);
  dec_class->set_format = GST_DEBUG_FUNCPTR(dec_set_format);
  dec_class->parse = GST_DEBUG_FUNCPTR(dec_parse);
  dec_class->sink_event = GST_DEBUG_FUNCPTR(dec_sink_event);
  dec_class->handle_frame = GST_DEBUG_FUNCPTR(dec_handle_frame);

  GST_DEBUG_CATEGORY_INIT(codec2dec_debug, "codec2dec", 0, "Codec2 decoder");
}

static void encoderd_codec2dec_init(EncoderdCodec2Dec *self) {
  gst_audio_decoder_set_needs_format(GST_AUDIO_DECODER(self), TRUE);
  gst_audio_decoder_set_drainable(GST_AUDIO_DECODER(self), TRUE);
}

gboolean encoderd_register_codec2dec(GstPlugin *plugin) {
  return gst_element_register(plugin, "codec2dec", GST_RANK_SECONDARY, ENCODERD_TYPE_CODEC2DEC);
}
