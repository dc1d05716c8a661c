/* rtpcodec2pay: Codec2 RTP payloader (GstRTPBasePayload). There is no RTP standard for Codec2; the mapping is:
 *
 *   sink: audio/x-codec2, mode=(int){3200,2400,1600,1400,1300,1200,700}   (mode absent = 2400)
 *   src:  application/x-rtp, media=audio, payload=[96,127] (default 97), clock-rate=8000, encoding-name=CODEC2,
 *         mode=(string)"2400"
 *
 * SDP (GStreamer turns the non-standard caps string "mode" into fmtp):
 *   a=rtpmap:97 CODEC2/8000
 *   a=fmtp:97 mode=2400
 *
 * Payload: k whole Codec2 frames concatenated (codec2_bytes_per_frame each, no header); RTP timestamp in 8 kHz
 * units, i.e. it advances by k × samples_per_frame per packet. k = frames-per-packet, or 0 (default) = as many
 * frames as make 40 ms (2 at 3200/2400, 1 at the 40 ms modes). k is further limited by max-ptime and the MTU. */
#include "elements.h"
#include "codec2-modes.h"
#include <gst/rtp/rtp.h>
#include <gst/base/gstadapter.h>

GST_DEBUG_CATEGORY_STATIC(rtpcodec2pay_debug);
#define GST_CAT_DEFAULT rtpcodec2pay_debug

#define DEFAULT_PT 97
#define DEFAULT_FRAMES_PER_PACKET 0
#define AUTO_PTIME (40 * GST_MSECOND)

#define ENCODERD_TYPE_RTPCODEC2PAY (encoderd_rtpcodec2pay_get_type())
G_DECLARE_FINAL_TYPE(EncoderdRtpCodec2Pay, encoderd_rtpcodec2pay, ENCODERD, RTPCODEC2PAY, GstRTPBasePayload)

struct _EncoderdRtpCodec2Pay {
  GstRTPBasePayload parent;
  gint frames_per_packet; /* property; 0 = auto (40 ms) */
  const EncoderdCodec2Mode *mode;
  GstAdapter *adapter;    /* whole frames waiting for a packet */
  GstClockTime first_pts; /* PTS of the first frame in the adapter */
  guint queued;           /* frames in the adapter */
};

G_DEFINE_TYPE(EncoderdRtpCodec2Pay, encoderd_rtpcodec2pay, GST_TYPE_RTP_BASE_PAYLOAD)

enum { PROP_0, PROP_FRAMES_PER_PACKET };

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("audio/x-codec2, mode=" ENCODERD_CODEC2_MODE_LIST "; audio/x-codec2"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media=(string)audio, payload=(int)[ 96, 127 ], clock-rate=(int)8000, "
                    "encoding-name=(string)CODEC2"));

/* How many frames go into one packet. */
static guint frames_per_packet(EncoderdRtpCodec2Pay *self) {
  GstRTPBasePayload *base = GST_RTP_BASE_PAYLOAD(self);
  const EncoderdCodec2Mode *m = self->mode;
  guint64 dur = encoderd_codec2_frame_duration(m);
  GST_OBJECT_LOCK(self);
  gint prop = self->frames_per_packet;
  GST_OBJECT_UNLOCK(self);
  guint k = prop > 0 ? (guint)prop : MAX(1, (guint)(AUTO_PTIME / dur));
  gint64 max_ptime = base->max_ptime;
  if (max_ptime > 0) k = MIN(k, MAX(1, (guint)(max_ptime / dur)));
  guint max_payload = gst_rtp_buffer_calc_payload_len(GST_RTP_BASE_PAYLOAD_MTU(base), 0, 0);
  k = MIN(k, MAX(1, max_payload / m->bytes_per_frame));
  return k;
}

static gboolean pay_set_caps(GstRTPBasePayload *base, GstCaps *caps) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(base);
  const EncoderdCodec2Mode *m = encoderd_codec2_mode_from_caps(self, caps);
  if (m == NULL) return FALSE;
  gboolean changed = self->mode != m;
  self->mode = m;
  /* the latency answered by pay_src_query depends on the mode */
  if (changed) gst_element_post_message(GST_ELEMENT(self), gst_message_new_latency(GST_OBJECT(self)));
  gst_rtp_base_payload_set_options(base, "audio", TRUE, "CODEC2", ENCODERD_CODEC2_RATE);
  return gst_rtp_base_payload_set_outcaps(base, "mode", G_TYPE_STRING, m->name, NULL);
}

/* Sends the queued frames as one packet. */
static GstFlowReturn flush_packet(EncoderdRtpCodec2Pay *self) {
  if (self->queued == 0) return GST_FLOW_OK;
  GstRTPBasePayload *base = GST_RTP_BASE_PAYLOAD(self);
  gsize len = gst_adapter_available(self->adapter);
  GstBuffer *payload = gst_adapter_take_buffer_fast(self->adapter, len);
  GstBuffer *out = gst_rtp_base_payload_allocate_output_buffer(base, 0, 0, 0);
  GST_BUFFER_PTS(out) = self->first_pts;
  GST_BUFFER_DURATION(out) = self->queued * encoderd_codec2_frame_duration(self->mode);
  out = gst_buffer_append(out, payload);
  GST_LOG_OBJECT(self, "packet of %u frames, %" G_GSIZE_FORMAT " bytes, pts %" GST_TIME_FORMAT, self->queued, len,
                 GST_TIME_ARGS(self->first_pts));
  self->queued = 0;
  self->first_pts = GST_CLOCK_TIME_NONE;
  return gst_rtp_base_payload_push(base, out);
}

static GstFlowReturn pay_handle_buffer(GstRTPBasePayload *base, GstBuffer *buf) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(base);
  if (self->mode == NULL) {
    GstCaps *caps = gst_caps_new_empty_simple("audio/x-codec2"); /* no caps event: assume 2400 */
    gboolean ok = pay_set_caps(base, caps);
    gst_caps_unref(caps);
    if (!ok) {
      gst_buffer_unref(buf);
      return GST_FLOW_NOT_NEGOTIATED;
    }
  }
  const EncoderdCodec2Mode *m = self->mode;
  GstFlowReturn ret = GST_FLOW_OK;
  if (GST_BUFFER_IS_DISCONT(buf)) ret = flush_packet(self);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref(buf);
    return ret;
  }

  gsize size = gst_buffer_get_size(buf);
  guint n = size / m->bytes_per_frame;
  if (size % m->bytes_per_frame != 0)
    GST_WARNING_OBJECT(self, "buffer of %" G_GSIZE_FORMAT " bytes is not whole %d-byte frames; dropping the rest", size,
                       m->bytes_per_frame);
  GstClockTime pts = GST_BUFFER_PTS(buf);
  guint64 dur = encoderd_codec2_frame_duration(m);
  guint k = frames_per_packet(self);
  /* Usually one frame per buffer, but an input buffer may hold several frames. */
  for (guint i = 0; i < n && ret == GST_FLOW_OK; i++) {
    if (self->queued == 0)
      self->first_pts = GST_CLOCK_TIME_IS_VALID(pts) ? pts + i * dur : GST_CLOCK_TIME_NONE;
    gst_adapter_push(self->adapter, gst_buffer_copy_region(buf, GST_BUFFER_COPY_MEMORY,
                                                           i * m->bytes_per_frame, m->bytes_per_frame));
    self->queued++;
    if (self->queued >= k) ret = flush_packet(self);
  }
  gst_buffer_unref(buf);
  return ret;
}

static gboolean pay_sink_event(GstRTPBasePayload *base, GstEvent *event) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(base);
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS: flush_packet(self); break;
    case GST_EVENT_FLUSH_STOP:
      gst_adapter_clear(self->adapter);
      self->queued = 0;
      self->first_pts = GST_CLOCK_TIME_NONE;
      break;
    default: break;
  }
  return GST_RTP_BASE_PAYLOAD_CLASS(encoderd_rtpcodec2pay_parent_class)->sink_event(base, event);
}

/* Holding k frames for a packet delays the first of them by k - 1 frame durations. (The base class leaves the
 * src pad's query function at the default, and its query vfunc only sees sink pad queries.) */
static gboolean pay_src_query(GstPad *pad, GstObject *parent, GstQuery *query) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(parent);
  gboolean ok = gst_pad_query_default(pad, parent, query);
  if (ok && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && self->mode != NULL) {
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency(query, &live, &min, &max);
    GstClockTime extra = (frames_per_packet(self) - 1) * encoderd_codec2_frame_duration(self->mode);
    min += extra;
    if (GST_CLOCK_TIME_IS_VALID(max)) max += extra;
    gst_query_set_latency(query, live, min, max);
  }
  return ok;
}

static GstStateChangeReturn pay_change_state(GstElement *element, GstStateChange transition) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(element);
  GstStateChangeReturn ret = GST_ELEMENT_CLASS(encoderd_rtpcodec2pay_parent_class)->change_state(element, transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY) {
    gst_adapter_clear(self->adapter);
    self->queued = 0;
    self->first_pts = GST_CLOCK_TIME_NONE;
    self->mode = NULL;
  }
  return ret;
}

static void pay_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(obj);
  switch (id) {
    case PROP_FRAMES_PER_PACKET:
      GST_OBJECT_LOCK(self);
      self->frames_per_packet = g_value_get_int(value);
      GST_OBJECT_UNLOCK(self);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
  }
}

static void pay_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
  EncoderdRtpCodec2Pay *self = ENCODERD_RTPCODEC2PAY(obj);
  switch (id) {
    case PROP_FRAMES_PER_PACKET:
      GST_OBJECT_LOCK(self);
      g_value_set_int(value, self->frames_per_packet);
      GST_OBJECT_UNLOCK(self);
      break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
  }
}

static void pay_finalize(GObject *obj) {
  g_object_unref(ENCODERD_RTPCODEC2PAY(obj)->adapter);
  G_OBJECT_CLASS(encoderd_rtpcodec2pay_parent_class)->finalize(obj);
}

static void encoderd_rtpcodec2pay_class_init(EncoderdRtpCodec2PayClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstRTPBasePayloadClass *pay_class = GST_RTP_BASE_PAYLOAD_CLASS(klass);

  gobject_class->set_property = pay_set_property;
  gobject_class->get_property = pay_get_property;
  gobject_class->finalize = pay_finalize;
  g_object_class_install_property(gobject_class, PROP_FRAMES_PER_PACKET,
      g_param_spec_int("frames-per-packet", "Frames per packet",
                       "Codec2 frames per RTP packet (0 = as many as make 40 ms); also limited by max-ptime and mtu",
                       0, 64, DEFAULT_FRAMES_PER_PACKET,
                       G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));

  element_class->change_state = GST_DEBUG_FUNCPTR(pay_change_state);
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "RTP Codec2 payloader", "Codec/Payloader/Network/RTP",
                                        "Payloads Codec2 frames into RTP packets (CODEC2/8000, fmtp mode=<bps>)",
                                        "encoderd");
  pay_class->set_caps = GST_DEBUG_FUNCPTR(pay_set_caps);
  pay_class->handle_buffer = GST_DEBUG_FUNCPTR(pay_handle_buffer);
  pay_class->sink_event = GST_DEBUG_FUNCPTR(pay_sink_event);

  GST_DEBUG_CATEGORY_INIT(rtpcodec2pay_debug, "rtpcodec2pay", 0, "Codec2 RTP payloader");
}

static void encoderd_rtpcodec2pay_init(EncoderdRtpCodec2Pay *self) {
  self->frames_per_packet = DEFAULT_FRAMES_PER_PACKET;
  self->adapter = gst_adapter_new();
  self->first_pts = GST_CLOCK_TIME_NONE;
  GST_RTP_BASE_PAYLOAD_PT(self) = DEFAULT_PT;
  gst_pad_set_query_function(GST_RTP_BASE_PAYLOAD_SRCPAD(self), GST_DEBUG_FUNCPTR(pay_src_query));
}

gboolean encoderd_register_rtpcodec2pay(GstPlugin *plugin) {
  return gst_element_register(plugin, "rtpcodec2pay", GST_RANK_SECONDARY, ENCODERD_TYPE_RTPCODEC2PAY);
}
