/* Sinks of a shared media's transports. See rtsp-preroll.h.
 *
 * gst-rtsp-server 1.22 adds a client's sender sinks at its PLAY: per stream an appsink for TCP, a multiudpsink for
 * UDP (one for all UDP clients), both async, set to the media's state at once. Each adds an ASYNC_START: the media
 * leaves PLAYING until every such sink has prerolled, and a sink added meanwhile gets PAUSED as its state, so it
 * takes its stream's first buffer and waits in its preroll, inside the push of the stream's tee. A stream's first
 * sink is linked to the tee at once; one of the other kind (a UDP client beside a TCP one) is linked from an IDLE
 * probe on the tee's pad. When that second client plays while the stream's first buffer waits in the first sink's
 * preroll, its new sink is not linked: the media waits for it to preroll, it waits for the IDLE probe, the probe
 * for the push, the push for PLAYING. Nothing moves again: that stream's feed appsrc fills and drops, its clients
 * never get a packet (docs/dataplane.md, "Receiver matrix", item 4: gdb showed the stream's thread in
 * gst_base_sink_wait_preroll under the tee, the media pipeline's last ASYNC_START unanswered). A track after the
 * first is the one caught: the first client's first sink still saw the media PLAYING and does not wait.
 * Sinks that are not async never take the media out of PLAYING, nor hold it from getting there. The media is live:
 * it prerolls on its streams' blocked buffers, never on these sinks. */
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
