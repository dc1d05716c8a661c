/* The RTSP server the addon's RtspServer class and the native engine host share (no N-API in it): one
 * GstRTSPServer bound to host:port on a main context, its mounts (on-demand launch lines and always-running feeds,
 * rtsp-feed.c), its client count, and its events handed to the owner's notify on the loop thread. */
#ifndef ENCODERD_RTSP_SERVER_H
#define ENCODERD_RTSP_SERVER_H
#include "gst-core.h"

typedef enum { NG_RTSP_CONNECTED, NG_RTSP_CLOSED, NG_RTSP_PREPARED, NG_RTSP_UNPREPARED, NG_RTSP_PLAY } ng_rtsp_event;

/* The events' names as index.d.ts and protocol.ts spell them. */
const char *ng_rtsp_event_name(ng_rtsp_event type);

/* On the loop thread: clients (connected, closed), text (the client's address for connected, the mount path for the
 * media events and play). Never called after ng_rtsp_server_close returned. */
typedef void (*ng_rtsp_notify)(gpointer owner, ng_rtsp_event type, gint clients, const char *text);

typedef struct ng_rtsp_server ng_rtsp_server;

/* Binds host:port and attaches the server to ctx. NULL with *why (g_free) when it cannot bind (NG_ERR_RTSP). */
ng_rtsp_server *ng_rtsp_server_new(const char *host, gint port, GMainContext *ctx, ng_rtsp_notify notify,
                                   gpointer owner, char **why);
ng_rtsp_server *ng_rtsp_server_ref(ng_rtsp_server *s);
void ng_rtsp_server_unref(gpointer s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ng_rtsp_server, ng_rtsp_server_unref)

/* Mounts; FALSE with *code and *why: NG_ERR_RTSP (already mounted), NG_ERR_PARSE (checked now, so a typo fails
 * here and not silently at the first client), NG_ERR_ARG (a feed's appsink missing or taken). */
gboolean ng_rtsp_server_mount_launch(ng_rtsp_server *s, const char *path, const char *launch, const char **code, char **why);
gboolean ng_rtsp_server_mount_feed(ng_rtsp_server *s, const char *path, GstElement *producer, char **sinks,
                                   char **launches, guint n, const char **code, char **why);
void ng_rtsp_server_unmount(ng_rtsp_server *s, const char *path);

gint ng_rtsp_server_port(ng_rtsp_server *s);
gint ng_rtsp_server_clients(ng_rtsp_server *s);
guint ng_rtsp_server_cleanup_sessions(ng_rtsp_server *s);

/* Removes every client and session (on the loop thread, waited for), stops the feeds and unbinds; no notify after.
 * Safe from the loop thread itself. Idempotent. */
void ng_rtsp_server_close(ng_rtsp_server *s);
gboolean ng_rtsp_server_closed(ng_rtsp_server *s);
#endif
