/* A shared RTSP media serves clients that may each set up only some of its streams (a viewer that asks for the
 * video alone). gst-rtsp-server leaves a stream nobody set up unlinked after rtpbin, so at PLAY the data of that
 * stream comes back not-linked and fails the whole media for every client. */
#ifndef ENCODERD_RTSP_UNWATCHED_H
#define ENCODERD_RTSP_UNWATCHED_H
#include <gst/rtsp-server/rtsp-server.h>

/* From the media's preparation on, a stream's buffers are dropped while nothing is linked after rtpbin (media-configure). */
void ng_rtsp_drop_unwatched(GstRTSPMedia *media);
#endif
