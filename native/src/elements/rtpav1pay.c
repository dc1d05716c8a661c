/* rtpav1pay: AV1 temporal units -> RTP per the AOM "RTP Payload Format for AV1" (v1.0).
 *
 * GStreamer 1.22 (Debian bookworm) has no AV1 payloader (upstream's lives in gst-plugins-rs), so this is a
 * minimal, single-layer, spec-compliant one:
 *  - input: one temporal unit (TU) per buffer, low-overhead OBU format with size fields
 *    (video/x-av1, stream-format=obu-stream, alignment=tu, i.e. what av1parse produces);
 *  - temporal delimiters, tile lists and padding OBUs are dropped (§5: the TD SHOULD be removed, tile lists
 *    MUST NOT be sent; padding is worthless on the wire);
 *  - obu_has_size_field is cleared and the size removed (§5 SHOULD); the OBU length moves into the element's
 *    length prefix;
 *  - W is always 0, so every OBU element carries a leb128 length. That is always legal and avoids the
 *    corner cases of an unprefixed last element;
 *  - OBUs that do not fit the MTU are split across packets with Y (continues) / Z (continuation);
 *  - N is set on the first packet of a TU that starts a coded video sequence (a key frame with a sequence
 *    header), the marker bit on the last packet of every TU, and the RTP timestamp follows the PTS.
 * No Dependency Descriptor extension and no SVC: neither is needed for a single-layer camera stream. */
#include "elements.h"
#include "av1-obu.h"

#include <string.h>
#include <gst/rtp/rtp.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC(encoderd_rtpav1pay_debug);
#define GST_CAT_DEFAULT encoderd_rtpav1pay_debug

/* Aggregation header bits: |Z|Y|W W|N|-|-|-| */
#define AGG_Z 0x80
#define AGG_Y 0x40
#define AGG_N 0x08

/* Do not open a fragment smaller than this at the tail of a packet that already carries OBUs: a few
 * bytes of OBU in an extra element cost a length byte and save nothing; start the next packet instead. */
#define MIN_TAIL_FRAGMENT 16

/* The smallest RTP payload we accept: aggregation header, a length byte, OBU header + extension and at
 * least one byte of OBU data per fragment. */
#define MIN_PAYLOAD 8

typedef struct {
  GstRTPBasePayload parent;
} EncoderdRtpAv1Pay;

typedef struct {
  GstRTPBasePayloadClass parent_class;
} EncoderdRtpAv1PayClass;

G_DEFINE_TYPE(EncoderdRtpAv1Pay, encoderd_rtp_av1_pay, GST_TYPE_RTP_BASE_PAYLOAD)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("video/x-av1, stream-format = (string) obu-stream, alignment = (string) tu"));

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS("application/x-rtp, media = (string) video, payload = (int) [ 96, 127 ], "
                    "clock-rate = (int) 90000, encoding-name = (string) AV1"));

/* Packs the OBU elements of one TU into RTP packets. Each packet's payload is built in scratch and
 * copied into an RTP buffer when the packet is complete. */
typedef struct {
  GstRTPBasePayload *pay;
  GstBuffer *input;     /* timestamps and video meta come from here */
  GstBufferList *list;
  guint8 *scratch;
  guint max;            /* payload bytes per packet, aggregation header included */
  guint len;            /* bytes used in scratch, starting after the aggregation header */
  guint8 agg;           /* aggregation header of the packet being built */
  guint n_elements;
  gint ext;             /* extension byte of the OBUs in this packet, -1 when none so far */
} Packer;

static void packer_flush(Packer *p, gboolean marker) {
  GstBuffer *out;
  GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;

  if (p->n_elements == 0) return;
  p->scratch[0] = p->agg; /* W stays 0: every element is length-prefixed */
  out = gst_rtp_base_payload_allocate_output_buffer(p->pay, p->len, 0, 0);
  gst_rtp_buffer_map(out, GST_MAP_WRITE, &rtp);
  memcpy(gst_rtp_buffer_get_payload(&rtp), p->scratch, p->len);
  /* Marker only on the last packet of the TU (spec §4.1: MUST be 0 otherwise). */
  gst_rtp_buffer_set_marker(&rtp, marker);
  gst_rtp_buffer_unmap(&rtp);
  /* The base class derives the RTP timestamp from the PTS; every packet of a TU shares it. */
  GST_BUFFER_PTS(out) = GST_BUFFER_PTS(p->input);
  GST_BUFFER_DTS(out) = GST_BUFFER_DTS(p->input);
  gst_buffer_list_add(p->list, out);

  p->len = 1;
  p->agg = 0;
  p->n_elements = 0;
  p->ext = -1;
}

/* Copies n bytes starting at offset off of the element prefix ++ payload into dst. The element is not
 * contiguous in the input because the removed obu_size sat between the header and the payload. */
static void copy_element_range(guint8 *dst, const guint8 *prefix, gsize prefix_len, const guint8 *payload,
                               gsize off, gsize n) {
  while (n > 0 && off < prefix_len) {
    *dst++ = prefix[off++];
    n--;
  }
  if (n > 0) memcpy(dst, payload + (off - prefix_len), n);
}

/* Largest fragment f with leb128_size(f) + f <= room. */
static gsize fragment_fitting(gsize room) {
  gsize f = room > 1 ? room - 1 : 0;
  while (f > 0 && encoderd_av1_leb128_size(f) + f > room) f--;
  return f;
}

/* Adds one OBU element (header without size field, optional extension byte, payload), splitting it
 * across packets when it does not fit. */
static void packer_add_obu(Packer *p, const guint8 *prefix, gsize prefix_len, const guint8 *payload,
                           gsize payload_len) {
  gsize total = prefix_len + payload_len;
  gsize done = 0;

  /* §4.3: OBUs with extension headers in one packet must share temporal_id and spatial_id. */
  if (prefix_len == 2 && p->n_elements > 0 && p->ext >= 0 && p->ext != prefix[1]) packer_flush(p, FALSE);
  if (prefix_len == 2) p->ext = prefix[1];

  while (done < total) {
    gsize room = p->max - p->len;
    gsize rest = total - done;
    gsize frag;

    if (encoderd_av1_leb128_size(rest) + rest <= room) {
      /* The whole (rest of the) OBU fits. */
      p->len += encoderd_av1_leb128_write(p->scratch + p->len, rest);
      copy_element_range(p->scratch + p->len, prefix, prefix_len, payload, done, rest);
      p->len += rest;
      p->n_elements++;
      return;
    }

    frag = fragment_fitting(room);
    if (p->n_elements > 0 && (frag < MIN_TAIL_FRAGMENT || frag < prefix_len + 1)) {
      /* Too little room left to be worth a fragment: start a new packet (done is 0 here, because
       * a packet that ends in a fragment is always flushed right away). */
      packer_flush(p, FALSE);
      continue;
    }

    p->len += encoderd_av1_leb128_write(p->scratch + p->len, frag);
    copy_element_range(p->scratch + p->len, prefix, prefix_len, payload, done, frag);
    p->len += frag;
    p->n_elements++;
    done += frag;
    /* Y: the last element continues in the next packet, whose first element then has Z. */
    p->agg |= AGG_Y;
    packer_flush(p, FALSE);
    p->agg = AGG_Z;
    if (prefix_len == 2) p->ext = prefix[1];
  }
}

/* Whether the TU starts a coded video sequence: it carries a sequence header and its first frame is a
 * KEY_FRAME. Parsing the frame header (2 bits) rather than trusting buffer flags keeps N right even when
 * upstream does not flag delta units; when the frame header cannot be read, fall back on the flags. */
static gboolean tu_starts_sequence(GstBuffer *buf, const guint8 *data, gsize size) {
  gsize pos = 0;
  gboolean has_seq = FALSE, reduced = FALSE;
  EncoderdAv1Obu obu;

  while (pos < size && encoderd_av1_obu_parse(data + pos, size - pos, &obu)) {
    if (obu.type == ENCODERD_AV1_OBU_SEQUENCE_HEADER) {
      has_seq = TRUE;
      encoderd_av1_seq_reduced_still_picture(obu.payload, obu.payload_len, &reduced);
    } else if (obu.type == ENCODERD_AV1_OBU_FRAME || obu.type == ENCODERD_AV1_OBU_FRAME_HEADER) {
      gboolean key;
      if (!has_seq) return FALSE;
      if (encoderd_av1_frame_is_key(obu.payload, obu.payload_len, reduced, &key)) return key;
      break;
    }
    pos += obu.total_len;
  }
  return has_seq && !GST_BUFFER_FLAG_IS_SET(buf, GST_BUFFER_FLAG_DELTA_UNIT);
}

static GstFlowReturn encoderd_rtp_av1_pay_handle_buffer(GstRTPBasePayload *pay, GstBuffer *buffer) {
  GstMapInfo map;
  Packer p;
  gsize pos = 0;
  guint mtu_payload;
  GstFlowReturn ret = GST_FLOW_OK;
  /* handle_buffer owns the buffer: freed on every return. */
  g_autoptr(GstBuffer) owned = buffer;

  /* Respect the mtu property: what is left of it after the 12-byte RTP header. */
  mtu_payload = gst_rtp_buffer_calc_payload_len(GST_RTP_BASE_PAYLOAD_MTU(pay), 0, 0);
  if (mtu_payload < MIN_PAYLOAD) {
    GST_ELEMENT_ERROR(pay, STREAM, ENCODE, ("mtu %u is too small for AV1 RTP", GST_RTP_BASE_PAYLOAD_MTU(pay)),
                      (NULL));
    return GST_FLOW_ERROR;
  }
  if (!gst_buffer_map(buffer, &map, GST_MAP_READ)) return GST_FLOW_ERROR;

  memset(&p, 0, sizeof p);
  p.pay = pay;
  p.input = buffer;
  p.list = gst_buffer_list_new();
  p.max = mtu_payload;
  p.scratch = g_malloc(p.max);
  p.len = 1;
  p.ext = -1;
  /* N only on the first packet of the TU; that packet never has Z (N=1 requires Z=0). */
  p.agg = tu_starts_sequence(buffer, map.data, map.size) ? AGG_N : 0;

  while (pos < map.size) {
    EncoderdAv1Obu obu;
    guint8 prefix[2];

    if (!encoderd_av1_obu_parse(map.data + pos, map.size - pos, &obu)) {
      /* A corrupt TU: sending part of it would only confuse the receiver, so drop all of it. */
      GST_ELEMENT_WARNING(pay, STREAM, DECODE, ("invalid AV1 OBU at offset %" G_GSIZE_FORMAT ", dropping TU", pos),
                          (NULL));
      gst_buffer_list_unref(p.list);
      p.list = NULL;
      break;
    }
    pos += obu.total_len;
    if (obu.type == ENCODERD_AV1_OBU_TEMPORAL_DELIMITER || obu.type == ENCODERD_AV1_OBU_TILE_LIST ||
        obu.type == ENCODERD_AV1_OBU_PADDING)
      continue;
    prefix[0] = obu.header & ~ENCODERD_AV1_OBU_HAS_SIZE; /* the size lives in the element length now */
    prefix[1] = obu.ext;
    packer_add_obu(&p, prefix, obu.header_len, obu.payload, obu.payload_len);
  }

  if (p.list) {
    packer_flush(&p, TRUE);
    if (gst_buffer_list_length(p.list) > 0)
      ret = gst_rtp_base_payload_push_list(pay, p.list);
    else
      gst_buffer_list_unref(p.list); /* a TU of nothing but a TD/padding: nothing to send */
  }
  g_free(p.scratch);
  gst_buffer_unmap(buffer, &map);
  return ret;
}

static gboolean encoderd_rtp_av1_pay_set_caps(GstRTPBasePayload *pay, GstCaps *caps) {
  /* media=video, dynamic PT (default 96 from the base class), clock-rate 90000, encoding-name AV1: the
   * SDP code turns exactly these into "a=rtpmap:<pt> AV1/90000". The optional fmtp parameters (profile,
   * level-idx, tier) default to 0/5/0 and are left out. */
  gst_rtp_base_payload_set_options(pay, "video", TRUE, "AV1", 90000);
  return gst_rtp_base_payload_set_outcaps(pay, NULL);
}

static void encoderd_rtp_av1_pay_class_init(EncoderdRtpAv1PayClass *klass) {
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstRTPBasePayloadClass *pay_class = GST_RTP_BASE_PAYLOAD_CLASS(klass);

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "RTP AV1 payloader", "Codec/Payloader/Network/RTP",
                                        "Payload-encodes AV1 video into RTP packets (AOM RTP Payload Format for AV1)",
                                        "encoderd");
  pay_class->set_caps = encoderd_rtp_av1_pay_set_caps;
  pay_class->handle_buffer = encoderd_rtp_av1_pay_handle_buffer;
}

static void encoderd_rtp_av1_pay_init(EncoderdRtpAv1Pay *self) {}

gboolean encoderd_register_rtpav1pay(GstPlugin *plugin) {
  GST_DEBUG_CATEGORY_INIT(encoderd_rtpav1pay_debug, "rtpav1pay", 0, "AV1 RTP payloader");
  return gst_element_register(plugin, "rtpav1pay", GST_RANK_SECONDARY, encoderd_rtp_av1_pay_get_type());
}
