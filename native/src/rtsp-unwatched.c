/* Streams of a shared media that no client receives. See rtsp-unwatched.h. */
#include "rtsp-unwatched.h"

/* A stream no client has set up (a viewer that asked for the video alone) has nowhere to send: gst-rtsp-server
 * links a stream's sender part after rtpbin only when a client sets it up. Its preroll buffer waits at rtpbin's
 * send_rtp_src pad (each stream is blocked there until PLAY); at PLAY every stream is unblocked, and that buffer, with
 * all after it, comes back not-linked: the appsrc feeding the stream fails the whole shared media ("Internal data
 * stream error"), which then answers every later client 503. So once the media is prepared, a probe after that
 * block drops a buffer only where it would come back not-linked: on a pad with nothing after it. A stream some
 * client set up is linked, and is never touched. (An earlier version dropped while the stream had no transport; a
 * client's transports may come after the unblock, and AV1 viewers joining at once missed their first keyframe more
 * often under load with it: docs/dataplane.md, "Receiver matrix".) */
static GstPadProbeReturn drop_unlinked(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  return gst_pad_is_linked(pad) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP;
}

/* The media's rtpbin: the element of that factory in the media's pipeline. */
static GstElement *rtpbin_of(GstRTSPMedia *media) {
  g_autoptr(GstElement) bin = gst_rtsp_media_get_element(media);
  GstObject *pipeline = bin ? gst_object_get_parent(GST_OBJECT(bin)) : NULL;
  if (!pipeline) return NULL;
  GstElement *found = NULL;
  g_autoptr(GstIterator) it = gst_bin_iterate_elements(GST_BIN(pipeline));
  GValue v = G_VALUE_INIT;
  while (!found && gst_iterator_next(it, &v) == GST_ITERATOR_OK) {
    GstElement *el = g_value_get_object(&v);
    GstElementFactory *factory = gst_element_get_factory(el);
    if (factory && g_str_equal(GST_OBJECT_NAME(factory), "rtpbin")) found = gst_object_ref(el);
    g_value_reset(&v);
  }
  g_value_unset(&v);
  gst_object_unref(pipeline);
  return found;
}

static void on_prepared(GstRTSPMedia *media, gpointer data) {
  g_autoptr(GstElement) rtpbin = rtpbin_of(media);
  for (guint i = 0; rtpbin && i < gst_rtsp_media_n_streams(media); i++) {
    GstRTSPStream *stream = gst_rtsp_media_get_stream(media, i);
    char name[32];
    g_snprintf(name, sizeof name, "send_rtp_src_%u", gst_rtsp_stream_get_index(stream));
    g_autoptr(GstPad) pad = gst_element_get_static_pad(rtpbin, name);
    if (pad) gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, drop_unlinked, NULL, NULL);
  }
}

void ng_rtsp_drop_unwatched(GstRTSPMedia *media) {
  g_signal_connect(media, "prepared", G_CALLBACK(on_prepared), NULL);
}
