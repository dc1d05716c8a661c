/* The pipeline's RTSP server: the shared server (native/src/rtsp-server.c) on the host's main loop with one mount, an
 * on-demand one (`launch`: the server builds the media at the first client) or a feed (`feed`: the running
 * pipeline's appsinks pushed into whichever shared media serves the mount). Its events go to the core as `service`
 * events of kind `rtsp`, as the Node host sends them (the client's address is not among them). A host has one server at most. */
#include "../src/rtsp-server.h"
#include "commands.h"

/* The count the server's last event said (atomic): the stats tick reads it without touching a server that the
 * command thread may be closing. -1 without a server. */
static gint client_count = -1;

gint hr_clients(void) { return g_atomic_int_get(&client_count); }

/* The server's notify, on the main thread. */
static void on_event(gpointer owner, ng_rtsp_event type, gint clients, const char *text) {
  JsonBuilder *b = hc_event("service");
  json_builder_set_member_name(b, "kind");
  json_builder_add_string_value(b, "rtsp");
  json_builder_set_member_name(b, "type");
  json_builder_add_string_value(b, ng_rtsp_event_name(type));
  /* An on-demand media is built for the first viewer and torn down after the last. */
  if (type == NG_RTSP_UNPREPARED) hc_trim_soon();
  if (type == NG_RTSP_CONNECTED || type == NG_RTSP_CLOSED) {
    g_atomic_int_set(&client_count, clients);
    json_builder_set_member_name(b, "clients");
    json_builder_add_int_value(b, clients);
  }
  if (type != NG_RTSP_CONNECTED && type != NG_RTSP_CLOSED) {
    json_builder_set_member_name(b, "path");
    json_builder_add_string_value(b, text ? text : "");
  }
  hc_emit(b);
}

static gboolean mount(ng_rtsp_server *s, JsonObject *service, hp_pipe *producer, const char **code, char **why) {
  const char *path = hc_string(service, "path", "/");
  if (!producer) return ng_rtsp_server_mount_launch(s, path, hc_string(service, "launch", ""), code, why);
  JsonArray *feeds = hc_array(service, "feeds");
  guint n = feeds ? json_array_get_length(feeds) : 0;
  if (!n) {
    *code = "NG_ERR_ARG";
    *why = g_strdup("feeds must not be empty");
    return FALSE;
  }
  g_auto(GStrv) sinks = g_new0(char *, n + 1);
  g_auto(GStrv) launches = g_new0(char *, n + 1);
  for (guint i = 0; i < n; i++) {
    JsonObject *f = json_array_get_object_element(feeds, i);
    sinks[i] = g_strdup(hc_string(f, "appsink", ""));
    launches[i] = g_strdup(hc_string(f, "launch", ""));
  }
  return ng_rtsp_server_mount_feed(s, path, hp_pipe_bin(producer), sinks, launches, n, code, why);
}

hr_server *hr_server_new(JsonObject *service, hp_pipe *producer, const char **code, char **why) {
  g_autoptr(ng_rtsp_server) s = ng_rtsp_server_new(hc_string(service, "host", "127.0.0.1"), (gint) hc_int(service, "port", 0),
                                                   hc_context(), on_event, NULL, why);
  if (!s) {
    *code = "NG_ERR_RTSP";
    return NULL;
  }
  if (!mount(s, service, producer, code, why)) {
    ng_rtsp_server_close(s);
    return NULL;
  }
  g_atomic_int_set(&client_count, 0);
  return (hr_server *) g_steal_pointer(&s);
}

void hr_server_close(hr_server *r) {
  ng_rtsp_server *s = (ng_rtsp_server *) r;
  ng_rtsp_server_close(s);
  g_atomic_int_set(&client_count, -1);
  ng_rtsp_server_unref(s);
}
