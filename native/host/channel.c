/* The IPC channel to the core: the fd Node passed in NODE_CHANNEL_FD, a stream socket on which each message is one
 * JSON text and a newline, both ways (Node's `serialization: 'json'`). Reading is a watch on the main context;
 * writing takes a lock so that lines from the main and the command thread never interleave. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <glib-unix.h>
#include "host.h"

static int channel_fd = -1;
static GMutex write_lock;
static GString *pending;
static void (*line_cb)(char *line);
static void (*eof_cb)(void);

static gboolean on_readable(gint fd, GIOCondition cond, gpointer data) {
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return G_SOURCE_CONTINUE;
  if (n <= 0) {
    eof_cb();
    return G_SOURCE_REMOVE;
  }
  g_string_append_len(pending, buf, n);
  char *nl;
  while ((nl = memchr(pending->str, '\n', pending->len))) {
    gsize len = nl - pending->str;
    char *line = g_strndup(pending->str, len);
    g_string_erase(pending, 0, len + 1);
    line_cb(line);
  }
  return G_SOURCE_CONTINUE;
}

void hc_channel_open(int fd, void (*on_line)(char *line), void (*on_eof)(void)) {
  channel_fd = fd;
  line_cb = on_line;
  eof_cb = on_eof;
  pending = g_string_new(NULL);
  /* Blocking writes: a line is written whole or the core is gone. This end is our own file description. */
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  GSource *s = g_unix_fd_source_new(fd, G_IO_IN | G_IO_HUP | G_IO_ERR);
  g_source_set_callback(s, (GSourceFunc) (void (*)(void)) on_readable, NULL, NULL);
  g_source_attach(s, hc_context());
  g_source_unref(s);
}

void hc_send(JsonNode *node) {
  g_autoptr(JsonGenerator) gen = json_generator_new();
  json_generator_set_root(gen, node);
  gsize len;
  g_autofree char *text = json_generator_to_data(gen, &len);
  json_node_unref(node);
  text = g_realloc(text, len + 1);
  text[len++] = '\n';
  g_mutex_lock(&write_lock);
  for (gsize off = 0; off < len && channel_fd >= 0;) {
    ssize_t n = write(channel_fd, text + off, len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  /* the core went away: the reader sees the end and the host exits */
    off += n;
  }
  g_mutex_unlock(&write_lock);
}

JsonBuilder *hc_event(const char *name) {
  JsonBuilder *b = json_builder_new();
  json_builder_begin_object(b);
  json_builder_set_member_name(b, "event");
  json_builder_add_string_value(b, name);
  return b;
}

void hc_emit(JsonBuilder *b) {
  json_builder_end_object(b);
  hc_send(json_builder_get_root(b));
  g_object_unref(b);
}
