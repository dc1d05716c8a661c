/* rtpcodec2depay: Codec2 RTP depayloader (GstRTPBaseDepayload), the reverse of rtpcodec2pay.
 *
 *   sink: application/x-rtp, media=audio, clock-rate=8000, encoding-name=CODEC2 [, mode=(string)"2400"]
 *         (mode absent = 2400; "700C" or "700" for 700C; an int mode is accepted too)
 *   src:  audio/x-codec2, mode=(int)N
 *
 * Each packet's payload is cut into frames of codec2_bytes_per_frame; one output buffer per frame, the first
 * carrying the packet's timestamp and the others following at one frame duration each. A trailing partial
 * frame is dropped with a warning. */
#include "elements.h"
#include "codec2-modes.h"
#include <gst/rtp/rtp.h>

GST_DEBUG_CATEGORY_STATIC(rtpcodec2depay_debug);
#define GST_CAT_DEFAULT rtpcodec2depay_debug

#define ENCODERD_TYPE_RTPCODEC2DEPAY (encoderd_rtpcodec2depay_get_type())
G_DECLARE_FINAL_TYPE(EncoderdRtpCodec2Depay, encoderd_rtpcodec2depay, ENCODERD, RTPCODEC2DEPAY, GstRTPBaseDepayload)

struct _EncoderdRtpCodec2Depay {
  GstRTPBaseDepayload parent;
  const EncoderdCodec2Mode *mode;
};

G_DEFINE_TYPE(EncoderdRtpCodec2Depay, encoderd_rtpcodec2depay, GST_TYPE_RTP_BASE_DEPAYLOAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media=(string)audio, clock-rate=(int)8000, encoding-name=(string)CODEC2"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-codec2, mode=" ENCODERD_CODEC2_MODE_LIST));

static gboolean depay_set_caps(GstRTPBaseDepayload *depay, GstCaps *caps) {
  EncoderdRtpCodec2Depay *self = ENCODERD_RTPCODEC2DEPAY(depay);
  GstStructure *s = gst_caps_get_structure(caps, 0);
  const EncoderdCodec2Mode *m = NULL;
  const GValue *v = gst_structure_get_value(s, "mode");
  if (v == NULL)
    m = encoderd_codec2_mode_from_bps(ENCODERD_CODEC2_DEFAULT_MODE);
  else if (G_VALUE_HOLDS_STRING(v))
    m = encoderd_codec2_mode_from_name(g_value_get_string(v));
  else if (G_VALUE_HOLDS_INT(v))
    m = encoderd_codec2_mode_from_bps(g_value_get_int(v));
  if (m == NULL) {
    GST_ERROR_OBJECT(self, "unsupported or malformed Codec2 mode in %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  gint rate = ENCODERD_CODEC2_RATE;
  gst_structure_get_int(s, "clock-rate", &rate);
  if (rate != ENCODERD_CODEC2_RATE) {
    GST_ERROR_OBJECT(self, "clock-rate must be 8000, not %d", rate);
    return FALSE;
  }
  depay->clock_rate = rate;
  self->mode = m;
  GstCaps *out = gst_caps_new_simple("audio/x-codec2", "mode", G_TYPE_INT, m->bps, NULL);
  gboolean ok = gst_pad_set_caps(GST_RTP_BASE_DEPAYLOAD_SRCPAD(depay), out);
  gst_caps_unref(out);
  GST_INFO_OBJECT(self, "mode %s: %d bytes per frame", m->name, m->bytes_per_frame);
  return ok;
}

static GstBuffer *depay_process(GstRTPBaseDepayload *depay, GstRTPBuffer *rtp) {
  EncoderdRtpCodec2Depay *self = ENCODERD_RTPCODEC2DEPAY(depay);
  const EncoderdCodec2Mode *m = self->mode;
  if (m == NULL) return NULL;
  guint len = gst_rtp_buffer_get_payload_len(rtp);
  guint n = len / m->bytes_per_frame;
  if (len % m->bytes_per_frame != 0)
    GST_WARNING_OBJECT(self, "payload of %u bytes is not whole %d-byte frames (mode %s); dropping the rest", len,
                       m->bytes_per_frame, m->name);
  if (n == 0) return NULL;

  GstBuffer *payload = gst_rtp_buffer_get_payload_buffer(rtp);
  GstClockTime pts = GST_BUFFER_PTS(rtp->buffer);
  guint64 dur = encoderd_codec2_frame_duration(m);
  GstBufferList *list = gst_buffer_list_new_sized(n);
  for (guint i = 0; i < n; i++) {
    GstBuffer *f = gst_buffer_copy_region(payload, GST_BUFFER_COPY_MEMORY, i * m->bytes_per_frame,
                                          m->bytes_per_frame);
    GST_BUFFER_PTS(f) = GST_CLOCK_TIME_IS_VALID(pts) ? pts + i * dur : GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(f) = dur;
    gst_buffer_list_add(list, f);
  }
  gst_buffer_unref(payload);
  gst_rtp_base_depayload_push_list(depay, list);
  return NULL;
}

static void encoderd_rtpcodec2depay_class_init(EncoderdRtpCodec2DepayClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstRTPBaseDepayloadClass *depay_class = GST_RTP_BASE_DEPAYLOAD_CLASS(klass);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "RTP Codec2 depayloader", "Codec/Depayloader/Network/RTP",
                                        "Extracts Codec2 frames from RTP packets (CODEC2/8000, fmtp mode=<bps>)",
                                        "encoderd");
  depay_class->set_caps = GST_DEBUG_FUNCPTR(depay_set_caps);
  depay_class->process_rtp_packet = GST_DEBUG_FUNCPTR(depay_process);

  GST_DEBUG_CATEGORY_INIT(rtpcodec2depay_debug, "rtpcodec2depay", 0, "Codec2 RTP depayloader");
}

static void encoderd_rtpcodec2depay_init(EncoderdRtpCodec2Depay *self) {}

gboolean encoderd_register_rtpcodec2depay(GstPlugin *plugin) {
  return gst_element_register(plugin, "rtpcodec2depay", GST_RANK_SECONDARY, ENCODERD_TYPE_RTPCODEC2DEPAY);
}
