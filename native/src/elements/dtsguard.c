/* dtsguard: keeps a stream's decoding timestamps strictly increasing (GstBaseTransform, in place, any caps).
 *
 * Why (docs/dataplane.md, passthrough, "Timing"; issue 14): a relayed stream keeps the timestamps its source
 * element gives it, and those are not always monotonic. tsdemux maps an MPEG-TS source's PTS/DTS through its PCR
 * clock recovery, which is kept on purpose; when datagrams stop for more than a second and then arrive in a burst,
 * the recovery resets to the late arrival (a jump forward by the stall) and then converges back to the sender's
 * clock, handing on a run of DTS that go backwards. A muxer or receiver given a DTS at or before the previous one
 * drops or refuses the frame ("non monotonically increasing dts" in ffmpeg).
 *
 * What it does: a buffer whose DTS (in running time) is not at least min-step after the previous one's is moved
 * to previous + min-step; its PTS moves by the same amount only when it would otherwise fall below the new DTS,
 * so a reordered stream's PTS is kept where it can be. Every other buffer, field and event passes untouched; a
 * buffer without a DTS passes as it is (a muxer then goes by its PTS) and is not remembered. "corrected" counts
 * the buffers moved. min-step defaults to 1 ms, the coarsest muxer clock the outputs use (Matroska's): a smaller
 * step could round to a repeated timestamp there. */
#include "elements.h"
#include <gst/base/gstbasetransform.h>

GST_DEBUG_CATEGORY_STATIC(dtsguard_debug);
#define GST_CAT_DEFAULT dtsguard_debug

#define DEFAULT_MIN_STEP GST_MSECOND

#define ENCODERD_TYPE_DTSGUARD (encoderd_dtsguard_get_type())
G_DECLARE_FINAL_TYPE(EncoderdDtsGuard, encoderd_dtsguard, ENCODERD, DTSGUARD, GstBaseTransform)

struct _EncoderdDtsGuard {
  GstBaseTransform parent;
  guint64 min_step;   /* ns; under the object lock */
  guint64 corrected;  /* under the object lock */
  gboolean have_last; /* streaming thread only */
  gint64 last_rt;     /* the previous DTS in running time, signed (a DTS may lie before the segment's start) */
  gboolean in_run;    /* the previous buffer was moved: warn once per run, not per buffer */
};

enum { PROP_0, PROP_MIN_STEP, PROP_CORRECTED };

G_DEFINE_TYPE(EncoderdDtsGuard, encoderd_dtsguard, GST_TYPE_BASE_TRANSFORM)

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void forget(EncoderdDtsGuard *self) {
  self->have_last = FALSE;
  self->in_run = FALSE;
}

/* The signed running time of a stream time t; FALSE when the segment cannot map it. */
static gboolean running_time(const GstSegment *seg, GstClockTime t, gint64 *rt) {
  guint64 abs_rt;
  int sign = gst_segment_to_running_time_full(seg, GST_FORMAT_TIME, t, &abs_rt);
  if (sign == 0) return FALSE;
  *rt = sign > 0 ? (gint64) abs_rt : -(gint64) abs_rt;
  return TRUE;
}

static GstFlowReturn guard_transform_ip(GstBaseTransform *trans, GstBuffer *buf) {
  EncoderdDtsGuard *self = ENCODERD_DTSGUARD(trans);
  GstClockTime dts = GST_BUFFER_DTS(buf);
  gint64 rt;
  /* A reverse segment's DTS run backwards by design: this guard is for forward playback and leaves it alone. */
  const GstSegment *seg = &trans->segment;
  if (!GST_CLOCK_TIME_IS_VALID(dts) || seg->format != GST_FORMAT_TIME || seg->rate < 0 || !running_time(seg, dts, &rt))
    return GST_FLOW_OK;

  GST_OBJECT_LOCK(self);
  gint64 step = (gint64) self->min_step;
  GST_OBJECT_UNLOCK(self);
  if (!self->have_last || rt >= self->last_rt + step) {
    self->have_last = TRUE;
    self->last_rt = rt;
    self->in_run = FALSE;
    return GST_FLOW_OK;
  }

  gint64 want = self->last_rt + step;
  /* Stream time runs rate times as fast as running time in a forward segment. */
  GstClockTime shift = seg->rate == 1.0 ? (GstClockTime) (want - rt) : (GstClockTime) ((double) (want - rt) * seg->rate);
  GstClockTime new_dts = dts + shift;
  GstClockTime pts = GST_BUFFER_PTS(buf);
  if (!self->in_run)
    GST_WARNING_OBJECT(self, "DTS %" GST_TIME_FORMAT " is %" G_GINT64_FORMAT " ns after the previous one (at least %"
                       G_GINT64_FORMAT " wanted): moved by %" GST_TIME_FORMAT, GST_TIME_ARGS(dts), rt - self->last_rt,
                       step, GST_TIME_ARGS(shift));
  else
    GST_INFO_OBJECT(self, "DTS %" GST_TIME_FORMAT " moved by %" GST_TIME_FORMAT, GST_TIME_ARGS(dts), GST_TIME_ARGS(shift));
  GST_BUFFER_DTS(buf) = new_dts;
  if (GST_CLOCK_TIME_IS_VALID(pts) && pts < new_dts) GST_BUFFER_PTS(buf) = MAX(pts + shift, new_dts);
  self->last_rt = want;
  self->in_run = TRUE;
  GST_OBJECT_LOCK(self);
  self->corrected++;
  GST_OBJECT_UNLOCK(self);
  return GST_FLOW_OK;
}

static gboolean guard_sink_event(GstBaseTransform *trans, GstEvent *event) {
  /* A flush starts the stream over: what came before it is no reference. A new segment is not a reason, since
   * the comparison is in running time, which a segment change keeps continuous. */
  if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP) forget(ENCODERD_DTSGUARD(trans));
  return GST_BASE_TRANSFORM_CLASS(encoderd_dtsguard_parent_class)->sink_event(trans, event);
}

static gboolean guard_start(GstBaseTransform *trans) {
  forget(ENCODERD_DTSGUARD(trans));
  return TRUE;
}

static void guard_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  EncoderdDtsGuard *self = ENCODERD_DTSGUARD(object);
  switch (id) {
    case PROP_MIN_STEP:
      GST_OBJECT_LOCK(self);
      self->min_step = g_value_get_uint64(value);
      GST_OBJECT_UNLOCK(self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
}

static void guard_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  EncoderdDtsGuard *self = ENCODERD_DTSGUARD(object);
  GST_OBJECT_LOCK(self);
  switch (id) {
    case PROP_MIN_STEP:
      g_value_set_uint64(value, self->min_step);
      break;
    case PROP_CORRECTED:
      g_value_set_uint64(value, self->corrected);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
  }
  GST_OBJECT_UNLOCK(self);
}

static void encoderd_dtsguard_class_init(EncoderdDtsGuardClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS(klass);

  gobject_class->set_property = guard_set_property;
  gobject_class->get_property = guard_get_property;
  g_object_class_install_property(gobject_class, PROP_MIN_STEP,
      g_param_spec_uint64("min-step", "Minimum step", "The least a DTS must follow the previous one by (ns)", 1,
                          GST_SECOND, DEFAULT_MIN_STEP, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property(gobject_class, PROP_CORRECTED,
      g_param_spec_uint64("corrected", "Corrected", "Buffers whose DTS was moved forward", 0, G_MAXUINT64, 0,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "DTS guard", "Generic",
                                        "Keeps decoding timestamps strictly increasing, moving a PTS only as far as "
                                        "its DTS needs", "encoderd");
  trans_class->transform_ip = GST_DEBUG_FUNCPTR(guard_transform_ip);
  trans_class->sink_event = GST_DEBUG_FUNCPTR(guard_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR(guard_start);
  /* Not passthrough: a passthrough transform hands transform_ip a buffer it may not write. In place, the base
   * class copies only a buffer shared elsewhere, and then only its metadata (the memory is shared). */
  trans_class->passthrough_on_same_caps = FALSE;

  GST_DEBUG_CATEGORY_INIT(dtsguard_debug, "dtsguard", 0, "Strictly increasing DTS");
}

static void encoderd_dtsguard_init(EncoderdDtsGuard *self) {
  self->min_step = DEFAULT_MIN_STEP;
  gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}

gboolean encoderd_register_dtsguard(GstPlugin *plugin) {
  return gst_element_register(plugin, "dtsguard", GST_RANK_NONE, ENCODERD_TYPE_DTSGUARD);
}
