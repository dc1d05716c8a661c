/* Shared between pipeline.c (the class) and pipeline-messages.c (bus messages and samples on their way to JS). */
#ifndef ENCODERD_PIPELINE_H
#define ENCODERD_PIPELINE_H
#include <gst/app/gstappsink.h>
#include "ng.h"

typedef struct {
  gint refs;
  GstElement *bin;           /* NULL once destroyed; main thread only */
  gconstpointer bin_id;      /* for telling the pipeline's own state-changed messages apart; never dereferenced */
  GMutex lock;               /* guards tsfn and first_error, which streaming threads touch */
  napi_threadsafe_function tsfn;
  char *first_error;
  GMutex state_lock;         /* serialises a worker's set_state with destroy()'s */
  gboolean destroyed;        /* guarded by state_lock */
  GHashTable *qos_dropped;   /* element name -> guint64 latest QoS `dropped`; guarded by lock (stats.c) */
  gint queued;               /* items in the tsfn's queue, and samples among them (atomic) */
  gint queued_samples;
  guint64 dropped_messages;  /* what a full queue refused (atomic; stats.c's ipcDropped) */
  guint64 dropped_samples;
} ng_pipeline;

/* The bound of a pipeline's tsfn queue: a JS thread that stalls (a long GC, a busy loop) costs at most this many
 * items, not memory without end. Element messages and warnings (level, spectrum: many a second) leave the last
 * NG_QUEUE_RESERVED places to state changes, errors and EOS, which the core must see; samples are frames, so fewer
 * of them may wait. What does not fit is dropped and counted. */
#define NG_QUEUE_MAX 1024
#define NG_QUEUE_RESERVED 64
#define NG_QUEUE_SAMPLES 32

/* The ng_pipeline of a JS Pipeline `self`; NULL with NG_ERR_ARG / NG_ERR_DESTROYED thrown. */
ng_pipeline *ng_pipeline_self(napi_env env, napi_value self);
/* Appends stats.c's Pipeline methods to out (at *n). */
gboolean ng_stats_define(napi_env env, napi_property_descriptor *out, size_t *n);

ng_pipeline *ng_pipeline_ref(ng_pipeline *p);
void ng_pipeline_unref(gpointer p);

/* The bus sync handler (data: the ng_pipeline): every message becomes plain C data queued to the tsfn. */
GstBusSyncReply ng_pipeline_on_bus(GstBus *bus, GstMessage *message, gpointer data);
/* The new_sample callback of a watched appsink (data: the ng_pipeline). */
GstFlowReturn ng_pipeline_on_sample(GstAppSink *sink, gpointer data);
/* The tsfn's call_js (context: the ng_pipeline) and finalizer (data: the ng_pipeline, whose ref it drops). */
void ng_pipeline_call_js(napi_env env, napi_value cb, void *context, void *data);
void ng_pipeline_tsfn_finalize(napi_env env, void *data, void *hint);
#endif
