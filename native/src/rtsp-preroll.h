/* A shared RTSP media whose clients join together, one over TCP and one over UDP, must not wait on itself
 * (rtsp-preroll.c). */
#ifndef ENCODERD_RTSP_PREROLL_H
#define ENCODERD_RTSP_PREROLL_H
#include <gst/rtsp-server/rtsp-server.h>

/* The sinks gst-rtsp-server adds to the media per transport change state at once (media-configure). */
void ng_rtsp_sinks_not_async(GstRTSPMedia *media);
#endif
