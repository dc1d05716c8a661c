/* The native engine host: one process running one pipeline (with its companions and RTSP server) for the core,
 * speaking the host protocol of core/engine/protocol.ts as JSON lines over the IPC channel Node gave it. It is
 * mechanism only: what to run, and what an error means, is the core's (docs/engine-host.md).
 *
 * Threads. The main thread runs the GLib main loop: the channel's reads, bus messages and samples on their way out,
 * the stats and KLV timers, the RTSP server. Commands run one at a time on the command thread (commands.c), which
 * may block (a state change waits for its timeout) without stopping events. Lines are written whole from either. */
#ifndef ENCODERD_HOST_H
#define ENCODERD_HOST_H
#include <json-glib/json-glib.h>
#include "../src/gst-core.h"

/* ---- channel.c: the IPC channel ---- */

/* Starts reading the channel fd on the main context: each line is handed to on_line (main thread, the line is
 * the callee's to g_free), and on_eof runs once when the core closes its end. */
void hc_channel_open(int fd, void (*on_line)(char *line), void (*on_eof)(void));
/* Writes node as one line (any thread; takes node). A core that went away is noticed by the reader. */
void hc_send(JsonNode *node);
/* A builder with an object open and "event": name set; hc_emit closes it and sends it. */
JsonBuilder *hc_event(const char *name);
void hc_emit(JsonBuilder *b);

/* ---- pipe.c: one GstPipeline and its bus ---- */

typedef struct hp_pipe hp_pipe;
/* Called on the main thread with each message of the pipe (not after hp_pipe_destroy); m stays the caller's. */
typedef void (*hp_listener)(hp_pipe *p, ng_msg *m, gpointer data);

hp_pipe *hp_pipe_new(const char *description, hp_listener listener, gpointer data, GError **err);
GstElement *hp_pipe_bin(hp_pipe *p);
/* Sets the state and waits up to timeout_ms for it (command thread). FALSE with *code and *why (g_free) as the
 * addon's setState rejects: NG_ERR_STATE with the first bus error, NG_ERR_TIMEOUT. */
gboolean hp_pipe_set_state(hp_pipe *p, GstState target, guint timeout_ms, const char **code, char **why);
GstState hp_pipe_state(hp_pipe *p);
/* Delivers the appsink's samples as NG_MSG_SAMPLE messages. */
gboolean hp_pipe_watch_sink(hp_pipe *p, const char *name, const char **code, char **why);
/* Waits up to timeout_ms for an end-of-stream posted since hp_pipe_expect_eos. */
void hp_pipe_expect_eos(hp_pipe *p);
gboolean hp_pipe_wait_eos(hp_pipe *p, guint timeout_ms);
guint64 hp_pipe_qos_dropped(hp_pipe *p);
guint64 hp_pipe_ipc_dropped(hp_pipe *p);
/* Waits until the main thread has handed on every message queued so far (command thread): what a failed state
 * change reads of the run's errors includes those posted before it failed. */
void hp_flush(void);
/* To NULL, and no more messages; drops the caller's reference. */
void hp_pipe_destroy(hp_pipe *p);
hp_pipe *hp_pipe_ref(hp_pipe *p);
void hp_pipe_unref(hp_pipe *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hp_pipe, hp_pipe_unref)

/* ---- commands.c ---- */

/* Starts the command thread. */
void hc_commands_start(void);
/* Queues a request line (main thread; takes line). */
void hc_commands_request(char *line);
/* Stops everything that runs (any thread; idempotent): the exit path. */
void hc_teardown(void);

/* malloc_trim(0) a second from now, on the main loop: what a teardown freed goes back to the system (the Node host
 * does the same, docs/operations.md "Memory over weeks"). Any thread. */
void hc_trim_soon(void);

/* ---- title.c: what ps shows ---- */

/* Notes where argv's strings lie (main, before gst_init rearranges argv). */
void hc_title_init(int argc, char **argv);
/* The cmdline becomes `<program> --pipeline <pipeline>` (command thread); FALSE when it does not fit. */
gboolean hc_title_set(const char *pipeline);

/* ---- host-stats.c: a stats event once a second ---- */

typedef struct hs_sampler hs_sampler;
/* Installs the counters meters names (before PLAYING, so the first buffer is counted); p NULL on demand. FALSE with
 * *code and *why when a named element or pad is missing. */
hs_sampler *hs_sampler_new(hp_pipe *p, JsonObject *meters, const char **code, char **why);
void hs_sampler_start(hs_sampler *s);
void hs_sampler_free(hs_sampler *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(hs_sampler, hs_sampler_free)

/* ---- host-rtsp.c ---- */

typedef struct hr_server hr_server;
/* Binds and mounts service (RtspService of core/sdk/types.ts); producer: the pipeline a feed takes samples from. */
hr_server *hr_server_new(JsonObject *service, hp_pipe *producer, const char **code, char **why);
/* Clients connected now (atomic); -1 without a server. */
gint hr_clients(void);
void hr_server_close(hr_server *r);

/* ---- klv-pacer.c ---- */

typedef struct hk_pacer hk_pacer;
/* Paces klv.packet (base64; its timestamp value at klv.stampAt) into klv.appsrc of p from now, stamped as klv.stamp
 * says, relaying the samples of klv.relay while klv.positioned is false (docs/engine-host.md, "KLV"). */
hk_pacer *hk_pacer_new(hp_pipe *p, JsonObject *klv);
/* A new packet (NULL: none), the offset of its timestamp value, and whether it carries a position; out at once. */
void hk_pacer_set(hk_pacer *k, GBytes *packet, gint stamp_at, gboolean positioned);
/* A packet of the source's own KLV (the relay appsink's sample). */
void hk_pacer_relay(hk_pacer *k, const guint8 *data, gsize size);
/* The source pauses (a looped reader's rebuild) and plays again: its last packet stands meanwhile. */
void hk_pacer_hold(hk_pacer *k);
void hk_pacer_resume(hk_pacer *k);
const char *hk_pacer_relay_sink(hk_pacer *k);
void hk_pacer_free(hk_pacer *k);

/* The main context every host source attaches to. */
GMainContext *hc_context(void);
#endif
