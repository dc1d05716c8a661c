/* The GStreamer layer the addon and the native engine host (native/host/) share: everything here is plain C on
 * GStreamer, with no N-API in it, so that the two front ends differ only in how they talk to their owner (JS
 * objects and a thread-safe function for the addon, JSON lines over an IPC channel for the host). */
#ifndef ENCODERD_GST_CORE_H
#define ENCODERD_GST_CORE_H
#include <gst/gst.h>
#include <gst/app/gstappsink.h>

/* A GstState as its index.d.ts name, and back (FALSE for an unknown name). */
const char *ng_state_name(GstState state);
gboolean ng_parse_state(const char *name, GstState *out);

/* A description parsed the way gst-launch does, FATAL_ERRORS on (a missing element or an unlinkable pair is an
 * error, not a half-built pipeline), wrapped in a pipeline when it is not one; sunk. NULL with *err set. */
GstElement *ng_parse_pipeline(const char *description, GError **err);

/* Marks an appsink as used by one consumer (sample delivery or an RTSP feed), so two never fight over its
 * callbacks. Returns FALSE when another consumer has it already; ng_appsink_owner says which. */
gboolean ng_appsink_claim(GstElement *sink, const char *owner);
const char *ng_appsink_owner(GstElement *sink);
void ng_appsink_release(GstElement *sink);
/* A watched appsink beside other sinks is a tap (framegrabs, the source's KLV), not an output: it stops counting as
 * a sink, so the pipeline's end-of-stream waits for the outputs alone. Call it once the pipeline plays: GstBin also
 * orders a state change by the flag (sinks first), and a tap set to PLAYING after its upstream would refuse the first
 * buffers (gst-core.c). */
void ng_tap_exempt_from_eos(GstElement *sink);

/* Calls fn for every element of bin, recursing into bins; a resync (the bin changed meanwhile) calls reset first
 * and starts again. */
void ng_bin_foreach(GstBin *bin, void (*fn)(GstElement *el, gpointer data), void (*reset)(gpointer data), gpointer data);

/* Calls fn with each readable property of el (but name) as text, where it has a simple form (ng_value_to_string). */
void ng_element_foreach_property(GstElement *el, void (*fn)(const char *name, const char *text, gpointer data), gpointer data);

/* ---- values (value-core.c) ---- */

/* Fills out (unset on entry) for pspec's type from a string (parsed the way gst-launch parses it: enum nicks,
 * flags "a+b", caps), a number (integral for integer types, in range) or a boolean. On failure FALSE with a message
 * in *why (g_free it), out unset. A value the pspec would clamp is a failure. */
gboolean ng_value_from_text(const char *s, GParamSpec *pspec, GValue *out, char **why);
gboolean ng_value_from_number(double d, GParamSpec *pspec, GValue *out, char **why);
gboolean ng_value_from_bool(gboolean b, GParamSpec *pspec, GValue *out, char **why);
/* The failure for a value of a type no property setter takes (an object, null). */
gboolean ng_value_mismatch(GParamSpec *pspec, char **why);

/* The value as text when it is a string, boolean, number or enum (nick); NULL for any other type. */
char *ng_value_to_string(const GValue *v);
/* Text for what ng_value_to_string leaves out but a reader can use: caps and structures as their to_string
 * writes them, flags as "a+b", fractions as "30/1"; NULL for other boxed and object values. */
char *ng_value_to_text(const GValue *v);

/* ---- app elements and events ---- */

/* Pushes a copy of data into the appsrc named name with pts and dts (ns; < 0: none). FALSE with *code and *why
 * (g_free) when there is no such element, it is not an appsrc, or it refused the buffer. */
gboolean ng_push_buffer(GstElement *bin, const char *name, const guint8 *data, gsize size, gint64 pts, gint64 dts,
                        const char **code, char **why);
/* The pipeline's running time now (clock time - base time), in ns; -1 while it has no clock or is not heading for
 * PLAYING (the base time is set when it goes to PLAYING). */
gint64 ng_running_time(GstElement *bin);
/* Asks el for a keyframe: into its src pad, so an encoder acts on it itself and anything else passes it upstream; a
 * sink has no src pad and sends it upstream out of its sink pad. */
void ng_force_key_unit(GstElement *el);

/* ---- measuring (stats-core.c) ---- */

/* Installs a buffer counter on pad (once); ng_counted reads it (FALSE when there is none). */
void ng_count_buffers(GstPad *pad);
gboolean ng_counted(GstPad *pad, guint64 *buffers, guint64 *bytes);
/* The names of the leaf sink elements (sink flag, not a bin), recursing into bins; free with g_ptr_array_unref. */
GPtrArray *ng_sink_names(GstBin *bin);
/* GStreamer's latency query, asked of the peer of sink's sink pad (a sink that does not sync answers "not live,
 * 0"). FALSE when nothing answers. min/max: GST_CLOCK_TIME_NONE when unknown. */
gboolean ng_latency(GstElement *sink, gboolean *live, GstClockTime *min, GstClockTime *max);
/* Element name -> latest QoS `dropped` (each element reports its running total), and their sum. Caller locks. */
void ng_qos_record(GHashTable **table, const char *element, guint64 dropped);
guint64 ng_qos_total(GHashTable *table);

/* ---- bus messages and samples as plain data (messages.c) ---- */

typedef enum { NG_MSG_STATE, NG_MSG_ERROR, NG_MSG_WARNING, NG_MSG_EOS, NG_MSG_ELEMENT, NG_MSG_SAMPLE, NG_MSG_QOS } ng_msg_type;

/* A bus message or sample reduced to plain data on the thread that posts it; the owner's thread turns it into
 * what its owner reads (JS objects, JSON). */
typedef struct {
  ng_msg_type type;
  GstState old, current, pending;
  char *source, *text, *debug, *caps;
  GstStructure *fields;
  guint8 *data;
  gsize size;
  gint64 pts, dts;
  gboolean keyframe;
  guint64 dropped;           /* NG_MSG_QOS: the element's running total */
} ng_msg;

void ng_msg_free(ng_msg *m);
/* A copy of an error's source, text and debug (what a failure's cause carries). */
ng_msg *ng_msg_error_copy(const ng_msg *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ng_msg, ng_msg_free)

/* The data of a bus message of bin, or NULL for what nobody reads. A LATENCY message is answered here, as gst-launch
 * does, by recalculating the latency on ctx (not on the posting streaming thread, which may hold locks the query
 * needs). State changes count only for bin itself (bin is compared, never dereferenced). */
ng_msg *ng_msg_from_bus(GstMessage *message, gconstpointer bin, GMainContext *ctx);
/* The next sample of a watched appsink, copied out with its caps as text; NULL when there is none. */
ng_msg *ng_msg_from_sample(GstAppSink *sink);
#endif
