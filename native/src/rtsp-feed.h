/* An RTSP feed: appsinks of an always-running producer pipeline pushing into the appsrcs (feed0, feed1, ...) of
 * whichever shared media currently serves the mount. */
#ifndef ENCODERD_RTSP_FEED_H
#define ENCODERD_RTSP_FEED_H
#include <gst/rtsp-server/rtsp-server.h>
#include "gst-core.h"

typedef struct ng_feed ng_feed;

/* Takes the producer's appsinks (main thread). NULL with *error set (g_free it) when an appsink is missing, not
 * an appsink, or already used by watchSink or another feed. */
ng_feed *ng_feed_new(GstElement *producer, char **sinks, guint n, char **error);
ng_feed *ng_feed_ref(ng_feed *f);
void ng_feed_unref(gpointer f);

/* The factory launch line: "( appsrc name=feed0 ... ! <launch0> appsrc name=feed1 ... ! <launch1> )". */
char *ng_feed_launch(char **launches, guint n);

/* media-configure: the new media's appsrcs become the target of the samples until it unprepares. */
void ng_feed_attach(ng_feed *f, GstRTSPMedia *media);

/* Asks each producer appsink's upstream encoder for a keyframe, so a joining client can decode at once. */
void ng_feed_request_keyframe(ng_feed *f);

/* Gives the appsinks back (main thread): no more samples are taken from the producer. */
void ng_feed_stop(ng_feed *f);
#endif
