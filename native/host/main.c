/* encoderd-host: the native engine host (host.h). Started by the core with the IPC channel's fd in NODE_CHANNEL_FD;
 * says `ready` with its pid, then runs commands until the core closes the channel or sends SIGTERM/SIGINT. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <glib-unix.h>
#include "../src/elements/elements.h"
#include "host.h"

/* A pipeline stuck in a state change must not keep the process alive (as the Node host: 3 s, then SIGKILL). */
#define EXIT_GRACE_MS 3000

GMainContext *hc_context(void) { return NULL; /* the default context, run by the main thread */ }

static gpointer watchdog(gpointer unused) {
  g_usleep(EXIT_GRACE_MS * G_TIME_SPAN_MILLISECOND);
  kill(getpid(), SIGKILL);
  return NULL;
}

/* The core went away (even SIGKILLed) or asked us to go: no orphaned hosts, exit 0. Main thread. */
static void exit_now(void) {
  static gboolean exiting = FALSE;
  if (exiting) return;
  exiting = TRUE;
  g_thread_unref(g_thread_new("encoderd-exit", watchdog, NULL));
  hc_teardown();
  exit(0);
}

static gboolean on_signal(gpointer unused) {
  exit_now();
  return G_SOURCE_REMOVE;
}

static void on_eof(void) { exit_now(); }

int main(int argc, char **argv) {
  const char *fd_text = g_getenv("NODE_CHANNEL_FD");
  if (!fd_text) {
    g_printerr("encoderd-host: no NODE_CHANNEL_FD: the engine host is started by encoderd, not by hand\n");
    return 64;
  }
  hc_title_init(argc, argv);
  g_autoptr(GError) err = NULL;
  if (!gst_init_check(&argc, &argv, &err)) {
    g_printerr("encoderd-host: gst_init failed: %s\n", err ? err->message : "unknown");
    return 70;
  }
  gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "encoderd", "Elements encoderd adds to GStreamer 1.22",
                             encoderd_elements_init, ENCODERD_PLUGIN_VERSION, ENCODERD_PLUGIN_LICENSE, "encoderd",
                             "encoderd", "https://localhost/encoderd");
  GMainLoop *loop = g_main_loop_new(NULL, FALSE);
  g_unix_signal_add(SIGTERM, on_signal, NULL);
  g_unix_signal_add(SIGINT, on_signal, NULL);
  /* The core's end may close while we write: that is its end, seen by the reader, not a reason to die. */
  signal(SIGPIPE, SIG_IGN);
  hc_commands_start();
  hc_channel_open(atoi(fd_text), hc_commands_request, on_eof);
  JsonBuilder *b = hc_event("ready");
  json_builder_set_member_name(b, "pid");
  json_builder_add_int_value(b, getpid());
  hc_emit(b);
  g_main_loop_run(loop);
  return 0;
}
