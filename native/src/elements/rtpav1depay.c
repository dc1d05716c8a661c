/* rtpav1depay: RTP per the AOM "RTP Payload Format for AV1" (v1.0) -> AV1 temporal units.
 *
 * GStreamer 1.22 (Debian bookworm) has no AV1 depayloader (upstream's lives in gst-plugins-rs). This one:
 *  - reads the aggregation header |Z|Y|W W|N|-|-|-| and the OBU elements (length-prefixed, except the last
 *    one when W != 0), and reassembles OBUs split across packets with Y/Z;
 *  - puts obu_has_size_field and obu_size back (RTP senders SHOULD strip them) and drops temporal
 *    delimiters and tile lists (receivers MUST ignore them);
 *  - outputs one TU per marker bit, or per RTP timestamp change when a marker was lost, starting with a
 *    temporal delimiter: video/x-av1, stream-format=obu-stream, alignment=tu, ready for av1parse/av1dec;
 *  - on a sequence-number gap (or a packet-lost event from rtpjitterbuffer) drops the damaged TU and,
 *    by default, everything up to the next key frame (N=1, or a packet starting with a sequence header,
 *    for senders that do not set N), and asks upstream for a key frame. The stream starts the same way:
 *    nothing is output before the first key frame, so the decoder never sees a frame it cannot decode. */
#include "elements.h"
#include "av1-obu.h"

#include <string.h>
#include <gst/rtp/rtp.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC(encoderd_rtpav1depay_debug);
#define GST_CAT_DEFAULT encoderd_rtpav1depay_debug

#define AGG_Z 0x80
#define AGG_Y 0x40
#define AGG_W(agg) (((agg) >> 4) & 0x03)
#define AGG_N 0x08

enum { PROP_0, PROP_WAIT_FOR_KEYFRAME, PROP_REQUEST_KEYFRAME };
#define DEFAULT_WAIT_FOR_KEYFRAME TRUE
#define DEFAULT_REQUEST_KEYFRAME TRUE

typedef struct {
  GstRTPBaseDepayload parent;

  /* properties */
  gboolean wait_for_keyframe;
  gboolean request_keyframe;

  /* the TU being assembled: its OBUs with size fields, the temporal delimiter is added on output */
  GByteArray *tu;
  gboolean tu_open;       /* at least one packet of this TU was accepted */
  guint32 tu_rtptime;
  GstClockTime tu_pts;
  gboolean tu_key;        /* began a coded video sequence (N=1 or a sequence header) */
  gboolean tu_broken;     /* lost or malformed data: the TU must not be output */

  /* an OBU split across packets (Y/Z): header, extension and payload bytes without size field */
  GByteArray *frag;
  gboolean in_frag;

  gboolean have_seq;
  guint16 next_seq;
  gboolean waiting_key;   /* dropping everything until a key frame */
  gboolean key_requested; /* one force-key-unit request per wait */
} EncoderdRtpAv1Depay;

typedef struct {
  GstRTPBaseDepayloadClass parent_class;
} EncoderdRtpAv1DepayClass;

G_DEFINE_TYPE(EncoderdRtpAv1Depay, encoderd_rtp_av1_depay, GST_TYPE_RTP_BASE_DEPAYLOAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media = (string) video, clock-rate = (int) 90000, "
                    "encoding-name = (string) AV1"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-av1, stream-format = (string) obu-stream, alignment = (string) tu"));

static void reset_tu(EncoderdRtpAv1Depay *self) {
  g_byte_array_set_size(self->tu, 0);
  g_byte_array_set_size(self->frag, 0);
  self->tu_open = FALSE;
  self->tu_key = FALSE;
  self->tu_broken = FALSE;
  self->in_frag = FALSE;
}

static void reset_all(EncoderdRtpAv1Depay *self) {
  reset_tu(self);
  self->have_seq = FALSE;
  self->waiting_key = self->wait_for_keyframe;
  self->key_requested = FALSE;
}

static void request_keyframe(EncoderdRtpAv1Depay *self) {
  if (!self->request_keyframe || self->key_requested) return;
  self->key_requested = TRUE;
  GST_DEBUG_OBJECT(self, "requesting a key frame upstream");
  /* rtpsession turns this into an RTCP PLI/FIR; a local encoder upstream gets it as is. */
  gst_pad_push_event(GST_RTP_BASE_DEPAYLOAD_SINKPAD(self),
                     gst_video_event_new_upstream_force_key_unit(GST_CLOCK_TIME_NONE, TRUE, 0));
}

/* Data was lost or damaged: the current TU cannot be decoded, and neither can anything that references
 * it, so (with wait-for-keyframe) resume only at the next key frame. */
static void on_loss(EncoderdRtpAv1Depay *self, const char *why) {
  GST_DEBUG_OBJECT(self, "%s: dropping the current TU", why);
  reset_tu(self);
  if (self->wait_for_keyframe) self->waiting_key = TRUE;
  request_keyframe(self);
}

/* Outputs the current TU (if complete) as TD + OBUs, then starts afresh. */
static void finish_tu(EncoderdRtpAv1Depay *self) {
  GstBuffer *out;
  GstMapInfo map;

  if (!self->tu_open) return;
  if (self->in_frag) {
    /* The TU ended while an OBU was still waiting for its continuation: its tail was lost. */
    on_loss(self, "TU ended inside a fragmented OBU");
    return;
  }
  if (self->tu_broken || self->tu->len == 0) {
    reset_tu(self);
    return;
  }
  out = gst_buffer_new_allocate(NULL, 2 + self->tu->len, NULL);
  gst_buffer_map(out, &map, GST_MAP_WRITE);
  /* Temporal delimiter with obu_has_size_field=1, obu_size=0: obu-stream TUs begin with one. */
  map.data[0] = (ENCODERD_AV1_OBU_TEMPORAL_DELIMITER << 3) | ENCODERD_AV1_OBU_HAS_SIZE;
  map.data[1] = 0;
  memcpy(map.data + 2, self->tu->data, self->tu->len);
  gst_buffer_unmap(out, &map);
  /* The PTS of the TU's first packet: when a timestamp change ends the TU, the packet being processed
   * belongs to the next TU and the base class would otherwise stamp ours with its time. */
  GST_BUFFER_PTS(out) = self->tu_pts;
  if (!self->tu_key)
    GST_BUFFER_FLAG_SET(out, GST_BUFFER_FLAG_DELTA_UNIT);
  else
    self->key_requested = FALSE; /* a key frame arrived: a later loss may request another one */
  reset_tu(self);
  gst_rtp_base_depayload_push(GST_RTP_BASE_DEPAYLOAD(self), out);
}

/* Appends one complete OBU (as carried in RTP: usually without size field) to the TU, with its size. */
static void append_obu(EncoderdRtpAv1Depay *self, const guint8 *data, gsize len) {
  guint8 hdr, leb[ENCODERD_AV1_LEB128_MAX];
  guint header_len, type;

  if (len == 0) return;
  hdr = data[0];
  if (hdr & ENCODERD_AV1_OBU_FORBIDDEN) {
    self->tu_broken = TRUE;
    return;
  }
  type = ENCODERD_AV1_OBU_TYPE(hdr);
  if (type == ENCODERD_AV1_OBU_TEMPORAL_DELIMITER || type == ENCODERD_AV1_OBU_TILE_LIST) return;
  header_len = (hdr & ENCODERD_AV1_OBU_EXT_FLAG) ? 2 : 1;
  if (len < header_len) {
    self->tu_broken = TRUE;
    return;
  }
  if (type == ENCODERD_AV1_OBU_SEQUENCE_HEADER) self->tu_key = TRUE;

  if (hdr & ENCODERD_AV1_OBU_HAS_SIZE) {
    /* The sender kept the size field (allowed, only SHOULD be stripped): keep the OBU as it is. */
    EncoderdAv1Obu obu;
    if (!encoderd_av1_obu_parse(data, len, &obu) || obu.total_len != len) {
      self->tu_broken = TRUE;
      return;
    }
    g_byte_array_append(self->tu, data, len);
    return;
  }
  hdr |= ENCODERD_AV1_OBU_HAS_SIZE;
  g_byte_array_append(self->tu, &hdr, 1);
  if (header_len == 2) g_byte_array_append(self->tu, data + 1, 1);
  g_byte_array_append(self->tu, leb, encoderd_av1_leb128_write(leb, len - header_len));
  g_byte_array_append(self->tu, data + header_len, len - header_len);
}

/* Whether a packet lets a receiver start decoding: N=1, or (for senders that never set N) a packet that
 * starts a TU with a sequence header. */
static gboolean packet_starts_sequence(const guint8 *payload, gsize len) {
  guint8 agg = payload[0];
  guint64 elem_len;
  gsize pos = 1;

  if (agg & AGG_Z) return FALSE;
  if (agg & AGG_N) return TRUE;
  if (AGG_W(agg) != 1) {
    guint n = encoderd_av1_leb128_read(payload + pos, len - pos, &elem_len);
    if (n == 0) return FALSE;
    pos += n;
  }
  return pos < len && ENCODERD_AV1_OBU_TYPE(payload[pos]) == ENCODERD_AV1_OBU_SEQUENCE_HEADER;
}

static GstBuffer *encoderd_rtp_av1_depay_process(GstRTPBaseDepayload *base, GstRTPBuffer *rtp) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)base;
  guint16 seq = gst_rtp_buffer_get_seq(rtp);
  guint32 rtptime = gst_rtp_buffer_get_timestamp(rtp);
  gboolean marker = gst_rtp_buffer_get_marker(rtp);
  const guint8 *payload = gst_rtp_buffer_get_payload(rtp);
  gsize len = gst_rtp_buffer_get_payload_len(rtp);
  guint8 agg;
  guint w, index = 0;
  gsize pos = 1;

  if (self->have_seq && seq != self->next_seq) on_loss(self, "sequence number gap");
  self->have_seq = TRUE;
  self->next_seq = seq + 1;

  /* A new timestamp closes the previous TU even when its marker packet was lost (spec §4.1). */
  if (self->tu_open && rtptime != self->tu_rtptime) finish_tu(self);

  if (len < 1) return NULL; /* nothing to depayload (e.g. padding-only packet) */
  agg = payload[0];
  w = AGG_W(agg);

  if ((agg & AGG_N) && (agg & AGG_Z)) {
    /* N=1 requires Z=0: a malformed packet. */
    on_loss(self, "invalid aggregation header (N=1 with Z=1)");
    return NULL;
  }

  if (self->waiting_key) {
    if (!packet_starts_sequence(payload, len)) {
      request_keyframe(self);
      return NULL;
    }
    GST_DEBUG_OBJECT(self, "key frame: resuming output");
    self->waiting_key = FALSE;
    self->key_requested = FALSE;
  }

  if (!self->tu_open) {
    self->tu_open = TRUE;
    self->tu_rtptime = rtptime;
    self->tu_pts = GST_BUFFER_PTS(rtp->buffer);
    self->tu_key = FALSE;
    self->tu_broken = FALSE;
  }
  if (agg & AGG_N) self->tu_key = TRUE;

  /* Z must continue exactly the fragment we hold. */
  if ((agg & AGG_Z) && !self->in_frag) {
    on_loss(self, "continuation fragment without its start");
    return NULL;
  }
  if (!(agg & AGG_Z) && self->in_frag) {
    on_loss(self, "missing continuation fragment");
    return NULL;
  }

  while (pos < len) {
    guint64 elem_len;
    const guint8 *elem;
    gboolean last;

    if (w != 0 && index == w - 1) {
      elem_len = len - pos; /* with W = 1..3 the last element has no length prefix */
    } else {
      guint n = encoderd_av1_leb128_read(payload + pos, len - pos, &elem_len);
      if (n == 0 || elem_len > len - pos - n) {
        on_loss(self, "malformed OBU element length");
        return NULL;
      }
      pos += n;
    }
    elem = payload + pos;
    pos += elem_len;
    last = pos >= len;

    if (index == 0 && (agg & AGG_Z)) {
      g_byte_array_append(self->frag, elem, elem_len);
      if (!(last && (agg & AGG_Y))) { /* the fragmented OBU is complete */
        append_obu(self, self->frag->data, self->frag->len);
        g_byte_array_set_size(self->frag, 0);
        self->in_frag = FALSE;
      }
    } else if (last && (agg & AGG_Y)) {
      g_byte_array_append(self->frag, elem, elem_len);
      self->in_frag = TRUE;
    } else {
      append_obu(self, elem, elem_len);
    }
    index++;
  }

  if (self->tu_broken) {
    on_loss(self, "malformed OBU");
    return NULL;
  }
  if (marker) finish_tu(self);
  return NULL; /* TUs are pushed by finish_tu */
}

static gboolean encoderd_rtp_av1_depay_packet_lost(GstRTPBaseDepayload *base, GstEvent *event) {
  on_loss((EncoderdRtpAv1Depay *)base, "packet lost (from the jitterbuffer)");
  /* The parent turns the event into a GAP event downstream. */
  return GST_RTP_BASE_DEPAYLOAD_CLASS(encoderd_rtp_av1_depay_parent_class)->packet_lost(base, event);
}

static gboolean encoderd_rtp_av1_depay_handle_event(GstRTPBaseDepayload *base, GstEvent *event) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)base;
  switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_STOP:
      reset_all(self);
      break;
    case GST_EVENT_EOS:
      /* The last TU may have lost its marker packet; output it if it is complete. */
      finish_tu(self);
      break;
    default:
      break;
  }
  return GST_RTP_BASE_DEPAYLOAD_CLASS(encoderd_rtp_av1_depay_parent_class)->handle_event(base, event);
}

static gboolean encoderd_rtp_av1_depay_set_caps(GstRTPBaseDepayload *base, GstCaps *caps) {
  GstStructure *s = gst_caps_get_structure(caps, 0);
  gint clock_rate = 90000;
  GstCaps *srccaps;
  gboolean ok;

  gst_structure_get_int(s, "clock-rate", &clock_rate);
  base->clock_rate = clock_rate;
  srccaps = gst_caps_new_simple("video/x-av1", "stream-format", G_TYPE_STRING, "obu-stream", "alignment",
                                G_TYPE_STRING, "tu", NULL);
  ok = gst_pad_set_caps(GST_RTP_BASE_DEPAYLOAD_SRCPAD(base), srccaps);
  gst_caps_unref(srccaps);
  return ok;
}

static GstStateChangeReturn encoderd_rtp_av1_depay_change_state(GstElement *element, GstStateChange transition) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)element;
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) reset_all(self);
  return GST_ELEMENT_CLASS(encoderd_rtp_av1_depay_parent_class)->change_state(element, transition);
}

static void encoderd_rtp_av1_depay_set_property(GObject *object, guint prop_id, const GValue *value,
                                                GParamSpec *pspec) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)object;
  switch (prop_id) {
    case PROP_WAIT_FOR_KEYFRAME:
      self->wait_for_keyframe = g_value_get_boolean(value);
      break;
    case PROP_REQUEST_KEYFRAME:
      self->request_keyframe = g_value_get_boolean(value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

static void encoderd_rtp_av1_depay_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)object;
  switch (prop_id) {
    case PROP_WAIT_FOR_KEYFRAME:
      g_value_set_boolean(value, self->wait_for_keyframe);
      break;
    case PROP_REQUEST_KEYFRAME:
      g_value_set_boolean(value, self->request_keyframe);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
  }
}

static void encoderd_rtp_av1_depay_finalize(GObject *object) {
  EncoderdRtpAv1Depay *self = (EncoderdRtpAv1Depay *)object;
  g_byte_array_unref(self->tu);
  g_byte_array_unref(self->frag);
  G_OBJECT_CLASS(encoderd_rtp_av1_depay_parent_class)->finalize(object);
}

static void encoderd_rtp_av1_depay_class_init(EncoderdRtpAv1DepayClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstRTPBaseDepayloadClass *depay_class = GST_RTP_BASE_DEPAYLOAD_CLASS(klass);

  gobject_class->set_property = encoderd_rtp_av1_depay_set_property;
  gobject_class->get_property = encoderd_rtp_av1_depay_get_property;
  gobject_class->finalize = encoderd_rtp_av1_depay_finalize;

  g_object_class_install_property(
      gobject_class, PROP_WAIT_FOR_KEYFRAME,
      g_param_spec_boolean("wait-for-keyframe", "Wait for key frame",
                           "Output nothing from the start and after data loss until a key frame arrives",
                           DEFAULT_WAIT_FOR_KEYFRAME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(
      gobject_class, PROP_REQUEST_KEYFRAME,
      g_param_spec_boolean("request-keyframe", "Request key frame",
                           "Send a force-key-unit event upstream after data loss",
                           DEFAULT_REQUEST_KEYFRAME, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "RTP AV1 depayloader", "Codec/Depayloader/Network/RTP",
                                        "Extracts AV1 video from RTP packets (AOM RTP Payload Format for AV1)",
                                        "encoderd");
  element_class->change_state = encoderd_rtp_av1_depay_change_state;
  depay_class->set_caps = encoderd_rtp_av1_depay_set_caps;
  depay_class->process_rtp_packet = encoderd_rtp_av1_depay_process;
  depay_class->packet_lost = encoderd_rtp_av1_depay_packet_lost;
  depay_class->handle_event = encoderd_rtp_av1_depay_handle_event;
}

static void encoderd_rtp_av1_depay_init(EncoderdRtpAv1Depay *self) {
  self->wait_for_keyframe = DEFAULT_WAIT_FOR_KEYFRAME;
  self->request_keyframe = DEFAULT_REQUEST_KEYFRAME;
  self->tu = g_byte_array_new();
  self->frag = g_byte_array_new();
  reset_all(self);
}

gboolean encoderd_register_rtpav1depay(GstPlugin *plugin) {
  GST_DEBUG_CATEGORY_INIT(encoderd_rtpav1depay_debug, "rtpav1depay", 0, "AV1 RTP depayloader");
  return gst_element_register(plugin, "rtpav1depay", GST_RANK_SECONDARY, encoderd_rtp_av1_depay_get_type());
}
