/* The command thread: requests from the core, one at a time in arrival order (the core serialises per pipeline, and
 * this keeps the host honest too), with the jobs the host queues itself (a companion's rebuild) in between. A
 * command may block here (a state change waits for its timeout) while the main thread keeps events flowing. */
#include "commands.h"

typedef struct { void (*fn)(gpointer); gpointer data; } job;

static GAsyncQueue *jobs;

void hc_fail(hc_error *e, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  e->code = code;
  g_free(e->why);
  e->why = g_strdup_vprintf(fmt, ap);
  va_end(ap);
}

void hc_error_clear(hc_error *e) {
  g_clear_pointer(&e->why, g_free);
  g_clear_pointer(&e->cause, ng_msg_free);
}

const char *hc_string(JsonObject *o, const char *name, const char *fallback) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING ? json_node_get_string(n) : fallback;
}

gint64 hc_int(JsonObject *o, const char *name, gint64 fallback) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  if (!n || !JSON_NODE_HOLDS_VALUE(n)) return fallback;
  GType t = json_node_get_value_type(n);
  return t == G_TYPE_INT64 ? json_node_get_int(n) : t == G_TYPE_DOUBLE ? (gint64) json_node_get_double(n) : fallback;
}

JsonObject *hc_object(JsonObject *o, const char *name) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

JsonArray *hc_array(JsonObject *o, const char *name) {
  JsonNode *n = o ? json_object_get_member(o, name) : NULL;
  return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static gboolean add_field(GQuark field, const GValue *v, gpointer data) {
  JsonBuilder *b = data;
  const char *name = g_quark_to_string(field);
  switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_BOOLEAN: json_builder_set_member_name(b, name); json_builder_add_boolean_value(b, g_value_get_boolean(v)); break;
    case G_TYPE_INT: json_builder_set_member_name(b, name); json_builder_add_int_value(b, g_value_get_int(v)); break;
    case G_TYPE_UINT: json_builder_set_member_name(b, name); json_builder_add_int_value(b, g_value_get_uint(v)); break;
    case G_TYPE_LONG: json_builder_set_member_name(b, name); json_builder_add_int_value(b, g_value_get_long(v)); break;
    case G_TYPE_ULONG: json_builder_set_member_name(b, name); json_builder_add_double_value(b, (double) g_value_get_ulong(v)); break;
    case G_TYPE_INT64: json_builder_set_member_name(b, name); json_builder_add_double_value(b, (double) g_value_get_int64(v)); break;
    case G_TYPE_UINT64: json_builder_set_member_name(b, name); json_builder_add_double_value(b, (double) g_value_get_uint64(v)); break;
    case G_TYPE_DOUBLE: json_builder_set_member_name(b, name); json_builder_add_double_value(b, g_value_get_double(v)); break;
    case G_TYPE_FLOAT: json_builder_set_member_name(b, name); json_builder_add_double_value(b, g_value_get_float(v)); break;
    case G_TYPE_STRING:
    case G_TYPE_ENUM: {
      g_autofree char *text = ng_value_to_string(v);
      json_builder_set_member_name(b, name);
      if (text) json_builder_add_string_value(b, text);
      else json_builder_add_null_value(b);
      break;
    }
    default:
      /* Lists, structures and other boxed values: the addon leaves them out too (pipeline-messages.c). */
      break;
  }
  return TRUE;
}

JsonNode *hc_structure_json(const GstStructure *s) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  gst_structure_foreach(s, add_field, b);
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* ---- the small commands ---- */

static JsonNode *set(JsonObject *cmd, hc_error *e) {
  g_autoptr(hp_pipe) p = hc_running(e);
  if (!p) return NULL;
  JsonArray *changes = hc_array(cmd, "changes");
  for (guint i = 0; changes && i < json_array_get_length(changes); i++) {
    JsonObject *c = json_array_get_object_element(changes, i);
    const char *name = hc_string(c, "element", ""), *prop = hc_string(c, "property", "");
    g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(hp_pipe_bin(p)), name);
    if (!el) return hc_fail(e, "NG_ERR_NO_ELEMENT", "no element named '%s' in the pipeline", name), NULL;
    GParamSpec *pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(el), prop);
    if (!pspec || !(pspec->flags & G_PARAM_WRITABLE))
      return hc_fail(e, "NG_ERR_NO_PROPERTY", "%s has no writable property '%s'", name, prop), NULL;
    JsonNode *v = json_object_get_member(c, "value");
    GType t = v && JSON_NODE_HOLDS_VALUE(v) ? json_node_get_value_type(v) : G_TYPE_INVALID;
    g_auto(GValue) value = G_VALUE_INIT;
    g_autofree char *why = NULL;
    gboolean ok = t == G_TYPE_STRING ? ng_value_from_text(json_node_get_string(v), pspec, &value, &why)
                : t == G_TYPE_INT64 ? ng_value_from_number((double) json_node_get_int(v), pspec, &value, &why)
                : t == G_TYPE_DOUBLE ? ng_value_from_number(json_node_get_double(v), pspec, &value, &why)
                : t == G_TYPE_BOOLEAN ? ng_value_from_bool(json_node_get_boolean(v), pspec, &value, &why)
                : ng_value_mismatch(pspec, &why);
    if (!ok) return hc_fail(e, "NG_ERR_VALUE", "%s.%s: %s", name, prop, why), NULL;
    g_object_set_property(G_OBJECT(el), prop, &value);
  }
  return NULL;
}

static void add_property(const char *name, const char *text, gpointer b) {
  json_builder_set_member_name(b, name);
  json_builder_add_string_value(b, text);
}

static void add_element(GstElement *el, gpointer b) {
  g_autofree char *name = gst_element_get_name(el);
  GstElementFactory *f = gst_element_get_factory(el);
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "name");
  json_builder_add_string_value(b, name);
  json_builder_set_member_name(b, "factory");
  json_builder_add_string_value(b, f ? GST_OBJECT_NAME(f) : G_OBJECT_TYPE_NAME(el));
  json_builder_set_member_name(b, "properties");
  json_builder_begin_object(b);
  ng_element_foreach_property(el, add_property, b);
  json_builder_end_object(b);
  json_builder_end_object(b);
}

/* The elements of a description, parsed and never played. A resync restarts the list (a fresh builder). */
static void restart(gpointer b) {
  json_builder_reset(b);
  json_builder_begin_array(b);
}

static JsonNode *inspect(JsonObject *cmd, hc_error *e) {
  g_autoptr(GError) err = NULL;
  g_autoptr(GstElement) bin = ng_parse_pipeline(hc_string(cmd, "description", ""), &err);
  if (!bin) return hc_fail(e, "NG_ERR_PARSE", "%s", err ? err->message : "could not parse the description"), NULL;
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_array(b);
  ng_bin_foreach(GST_BIN(bin), add_element, restart, b);
  json_builder_end_array(b);
  return json_builder_get_root(b);
}

static JsonNode *push(JsonObject *cmd, hc_error *e) {
  g_autoptr(hp_pipe) p = hc_running(e);
  if (!p) return NULL;
  gsize size;
  g_autofree guchar *data = g_base64_decode(hc_string(cmd, "data", ""), &size);
  g_autofree char *why = NULL;
  if (!ng_push_buffer(hp_pipe_bin(p), hc_string(cmd, "appsrc", ""), data, size, hc_int(cmd, "ptsNs", -1), -1, &e->code, &why))
    e->why = g_steal_pointer(&why);
  return NULL;
}

static JsonNode *force_key_unit(JsonObject *cmd, hc_error *e) {
  g_autoptr(hp_pipe) p = hc_running(e);
  if (!p) return NULL;
  const char *name = hc_string(cmd, "element", "");
  g_autoptr(GstElement) el = gst_bin_get_by_name(GST_BIN(hp_pipe_bin(p)), name);
  if (!el) return hc_fail(e, "NG_ERR_NO_ELEMENT", "no element named '%s' in the pipeline", name), NULL;
  ng_force_key_unit(el);
  return NULL;
}

/* The packet for the current position (base64; absent or null: none) and where its timestamp value is. */
static JsonNode *klv(JsonObject *cmd, hc_error *e) {
  const char *text = hc_string(cmd, "packet", NULL);
  gsize size = 0;
  guchar *data = text ? g_base64_decode(text, &size) : NULL;
  g_autoptr(GBytes) packet = data ? g_bytes_new_take(data, size) : NULL;
  JsonNode *positioned = json_object_get_member(cmd, "positioned");
  hc_klv_set(packet, (gint) hc_int(cmd, "stampAt", -1), positioned && json_node_get_boolean(positioned), e);
  return NULL;
}

static JsonNode *state(JsonObject *cmd, hc_error *e) {
  g_auto(hc_error) none = { 0 };
  g_autoptr(hp_pipe) p = hc_running(&none);
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "state");
  json_builder_add_string_value(b, p ? ng_state_name(hp_pipe_state(p)) : "null");
  json_builder_set_member_name(b, "rtspClients");
  json_builder_add_int_value(b, MAX(hr_clients(), 0));
  json_builder_end_object(b);
  return json_builder_get_root(b);
}

/* A spare handed to a pipeline: ps shows which one it serves (title.c). */
static JsonNode *name(JsonObject *cmd, hc_error *e) {
  const char *pipeline = hc_string(cmd, "pipeline", NULL);
  if (!pipeline) {
    hc_fail(e, "NG_ERR_ARG", "name needs a pipeline");
    return NULL;
  }
  if (!hc_title_set(pipeline)) g_printerr("encoderd-host: no room in argv to name the host for %s\n", pipeline);
  return NULL;
}

static const struct { const char *op; JsonNode *(*run)(JsonObject *cmd, hc_error *e); } commands[] = {
  { "play", hc_play }, { "stop", hc_stop }, { "set", set }, { "inspect", inspect }, { "probe", hc_probe },
  { "push", push }, { "klv", klv }, { "force-key-unit", force_key_unit }, { "state", state },
  { "name", name },
};

static void reply(JsonNode *id, JsonNode *result, hc_error *e) {
  g_autoptr(JsonBuilder) b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "id");
  json_builder_add_value(b, id);
  json_builder_set_member_name(b, "ok");
  json_builder_add_boolean_value(b, e->code == NULL);
  if (!e->code) {
    json_builder_set_member_name(b, "result");
    json_builder_add_value(b, result ? result : json_node_new(JSON_NODE_NULL));
  } else {
    json_builder_set_member_name(b, "error");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "code");
    json_builder_add_string_value(b, e->code);
    json_builder_set_member_name(b, "message");
    json_builder_add_string_value(b, e->why ? e->why : "");
    if (e->cause) {
      json_builder_set_member_name(b, "cause");
      json_builder_begin_object(b);
      json_builder_set_member_name(b, "source");
      json_builder_add_string_value(b, e->cause->source ? e->cause->source : "");
      json_builder_set_member_name(b, "message");
      json_builder_add_string_value(b, e->cause->text ? e->cause->text : "");
      json_builder_set_member_name(b, "debug");
      json_builder_add_string_value(b, e->cause->debug ? e->cause->debug : "");
      json_builder_end_object(b);
    }
    json_builder_end_object(b);
    if (result) json_node_unref(result);
  }
  json_builder_end_object(b);
  hc_send(json_builder_get_root(b));
}

static void run_request(gpointer data) {
  g_autofree char *line = data;
  g_autoptr(JsonParser) parser = json_parser_new();
  if (!json_parser_load_from_data(parser, line, -1, NULL) || !JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser))) return;
  JsonObject *req = json_node_get_object(json_parser_get_root(parser));
  JsonNode *id = json_object_get_member(req, "id");
  JsonObject *cmd = hc_object(req, "cmd");
  /* Node's own messages on the channel ({cmd: 'NODE_...'}) carry no id. */
  if (!id || !cmd) return;
  const char *op = hc_string(cmd, "op", "");
  g_auto(hc_error) e = { 0 };
  JsonNode *result = NULL;
  guint i;
  for (i = 0; i < G_N_ELEMENTS(commands) && strcmp(commands[i].op, op); i++) {}
  if (i < G_N_ELEMENTS(commands)) result = commands[i].run(cmd, &e);
  else hc_fail(&e, "NG_ERR_ARG", "unknown command '%s'", op);
  reply(json_node_copy(id), result, &e);
}

void hc_commands_job(void (*fn)(gpointer), gpointer data) {
  job *j = g_new(job, 1);
  j->fn = fn;
  j->data = data;
  g_async_queue_push(jobs, j);
}

void hc_commands_request(char *line) { hc_commands_job(run_request, line); }

static gpointer run(gpointer unused) {
  for (;;) {
    job *j = g_async_queue_pop(jobs);
    j->fn(j->data);
    g_free(j);
  }
  return NULL;
}

void hc_commands_start(void) {
  jobs = g_async_queue_new();
  g_thread_unref(g_thread_new("encoderd-commands", run, NULL));
}
