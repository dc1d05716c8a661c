/* Between the command thread (commands.c) and what the commands run (play.c, companions.c, probe.c, events.c). */
#ifndef ENCODERD_HOST_COMMANDS_H
#define ENCODERD_HOST_COMMANDS_H
#include "host.h"

/* A command's failure as the reply carries it: the addon's code and message, and cause, the bus error that explains
 * it, which the core formats (its transports' context is policy: core/engine/native-host.ts). */
typedef struct {
  const char *code;
  char *why;
  ng_msg *cause;
} hc_error;
/* Frees what an hc_error holds: declare one with g_auto(hc_error) e = { 0 }. */
void hc_error_clear(hc_error *e);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(hc_error, hc_error_clear)

/* Each returns the reply's result (NULL: JSON null), or NULL with e->code set. Command thread. */
JsonNode *hc_play(JsonObject *cmd, hc_error *e);
JsonNode *hc_stop(JsonObject *cmd, hc_error *e);
JsonNode *hc_probe(JsonObject *cmd, hc_error *e);
/* The running pipeline (a new ref), or NULL with NG_ERR_DESTROYED in e. */
hp_pipe *hc_running(hc_error *e);
/* Hands the running pipeline's KLV pacer a new packet; NG_ERR_DESTROYED without one. */
void hc_klv_set(GBytes *packet, gint stamp_at, gboolean positioned, hc_error *e);
/* Starts the play's companions (cmd.companions, watching cmd.companionSinks), in order; FALSE at the first that does
 * not play, with e saying which. The caller tears down. */
gboolean hc_companions_start(JsonObject *cmd, hc_error *e);
/* Destroys the companions (any thread). */
void hc_companions_stop(void);
/* Events every pipeline of the host sends alike (events.c). */
void hc_emit_error(const ng_msg *m);
void hc_emit_sample(const ng_msg *m);
/* Hands a sample of the KLV relay appsink to the running pacer (the source's own KLV); others are ignored. */
void hc_klv_relay(const ng_msg *m);
/* The source's KLV held (TRUE) while a looped reader is rebuilt, and resumed after. */
void hc_klv_hold(gboolean held);
/* Queues a job for the command thread (any thread). */
void hc_commands_job(void (*fn)(gpointer), gpointer data);

void hc_fail(hc_error *e, const char *code, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
/* A member of o, or a default when absent or of another type. */
const char *hc_string(JsonObject *o, const char *name, const char *fallback);
gint64 hc_int(JsonObject *o, const char *name, gint64 fallback);
JsonObject *hc_object(JsonObject *o, const char *name);
JsonArray *hc_array(JsonObject *o, const char *name);
/* A sample's fields and element messages' structures as JSON. */
JsonNode *hc_structure_json(const GstStructure *s);
#endif
