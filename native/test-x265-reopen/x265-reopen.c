/* x265-reopen: counts the C heap blocks libx265 keeps per live bitrate change (tests only, issue 16).
 *
 * Why a program of its own: the heap figures of a live pipeline (mallinfo2, VmRSS) jitter with what is in flight and
 * with the load beside them, and in a full suite the jitter hid a 38 kB-a-change leak (test/native/memory.test.ts).
 * glibc's mtrace records every allocation and free, so the blocks left over are counted exactly, whatever the load.
 *
 *   MALLOC_TRACE=<file> LD_PRELOAD=libc_malloc_debug.so.0 x265-reopen <x265enc option-string> <warm> <changes>
 *
 * A non-live 320×240 test pattern runs through x265enc as the H.265 plugin sets it (superfast, zerolatency); a probe
 * on the encoder's sink pad changes the bitrate (300 ↔ 400) every second frame, which x265enc 1.22 applies by closing
 * and opening x265 at the next frame. Tracing starts after <warm> changes and stops after <changes> more; the test
 * reads the trace (blocks allocated by libx265 and never freed) for two values of <changes> and takes the difference,
 * so what the open encoder holds cancels out. Exit 0 after the trace is closed, 1 on a pipeline error. */
#include <gst/gst.h>
#include <mcheck.h>
#include <stdlib.h>

typedef struct {
  GstElement *pipeline, *enc;
  guint frames, warm, changes, changed;
} run_t;

static GstPadProbeReturn on_frame(GstPad *pad, GstPadProbeInfo *info, gpointer data) {
  run_t *r = data;
  if (++r->frames % 2) return GST_PAD_PROBE_OK;
  if (r->changed == r->warm) mtrace();
  if (r->changed == r->warm + r->changes) {
    muntrace();
    gst_element_post_message(r->enc, gst_message_new_application(GST_OBJECT(r->enc), gst_structure_new_empty("done")));
    return GST_PAD_PROBE_REMOVE;
  }
  g_object_set(r->enc, "bitrate", r->changed % 2 ? 300u : 400u, NULL);
  r->changed++;
  return GST_PAD_PROBE_OK;
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc != 4) {
    g_printerr("usage: %s <option-string> <warm> <changes>\n", argv[0]);
    return 2;
  }
  run_t r = { .warm = (guint) atoi(argv[2]), .changes = (guint) atoi(argv[3]) };
  GError *err = NULL;
  gchar *desc = g_strdup_printf("videotestsrc pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1 ! "
    "x265enc name=venc bitrate=300 tune=zerolatency speed-preset=superfast key-int-max=30 option-string=\"%s\" ! "
    "fakesink sync=false", argv[1]);
  r.pipeline = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!r.pipeline) {
    g_printerr("%s\n", err->message);
    g_clear_error(&err);
    return 1;
  }
  r.enc = gst_bin_get_by_name(GST_BIN(r.pipeline), "venc");
  GstPad *sink = gst_element_get_static_pad(r.enc, "sink");
  gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_BUFFER, on_frame, &r, NULL);
  gst_object_unref(sink);
  gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(r.pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
    GST_MESSAGE_APPLICATION | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  int code = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_APPLICATION ? 0 : 1;
  if (code) g_printerr("pipeline ended before the changes were done (%s)\n", GST_MESSAGE_TYPE_NAME(msg));
  gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(r.pipeline, GST_STATE_NULL);
  gst_object_unref(r.enc);
  gst_object_unref(r.pipeline);
  return code;
}
