/* Sinks of a shared media's transports. See rtsp-preroll.h.
 *
 * gst-rtsp-server 1.22 adds a stream's sender sinks when a client sets the stream up: an appsink for TCP, a
 * multiudpsink for UDP, both async. The first sink of a stream is linked to the stream's tee at once; a second kind
 * (the other client's transport) is linked from an IDLE probe on the tee pad of the first, but added and set to the
 * media's state right away. Between a PLAY (which unblocks the streams while the media is still PAUSED and only then
 * asks for PLAYING) and the moment every async sink has prerolled, the media is not PLAYING: a stream's first buffer
 * waits in its sink's preroll, inside the tee's push. When the other client's SETUP of that stream comes then, its new
 * sink is async and not linked: the media waits for it to preroll before it goes PLAYING, it waits for the IDLE probe
 * to link it, the probe waits for the tee pad to be idle, and the push waits for PLAYING. Nothing moves again: that
 * stream's feed appsrc fills and drops, its clients never get a packet (docs/dataplane.md, "Receiver matrix", item 4;
 * gdb showed the stream's thread in gst_base_sink_wait_preroll, the media pipeline's last ASYNC_START unanswered).
 * Sinks that are not async never hold the media's state change, so PLAY takes the media to PLAYING at once and the
 * waiting push goes on. The media is live: it prerolls on the streams' blocked buffers, never on these sinks. */
#include "rtsp-preroll.h"

static void on_element_added(GstBin *pipeline, GstElement *element, gpointer data) {
  if (GST_IS_BASE_SINK(element)) g_object_set(element, "async", FALSE, NULL);
}

void ng_rtsp_sinks_not_async(GstRTSPMedia *media) {
  /* The media's pipeline holds the factory's bin, rtpbin and what gst-rtsp-server adds per stream: a sink added
   * directly to it is one of the transports' (a sink in the launch line is inside the factory's bin). */
  g_autoptr(GstElement) bin = gst_rtsp_media_get_element(media);
  g_autoptr(GstObject) pipeline = bin ? gst_object_get_parent(GST_OBJECT(bin)) : NULL;
  if (pipeline) g_signal_connect(pipeline, "element-added", G_CALLBACK(on_element_added), NULL);
}
