/* encoderdsegv, tests only (README.md): a passthrough element that segfaults by dereferencing a NULL pointer in its
 * streaming thread once `after-buffers` buffers have passed through it, as a buggy element in a real pipeline would.
 * The isolation test (test/faults/native-host-isolation.test.ts) puts it in one pipeline and watches the others. */
#include <gst/base/gstbasetransform.h>
#include <gst/gst.h>
#include <stdio.h>
#include <sys/resource.h>

#define TYPE_ENCODERD_SEGV (encoderd_segv_get_type())
G_DECLARE_FINAL_TYPE(EncoderdSegv, encoderd_segv, ENCODERD, SEGV, GstBaseTransform)

struct _EncoderdSegv {
  GstBaseTransform parent;
  guint after_buffers;
  guint seen;
  /* Never set: GObject zeroes the instance, so this is the NULL the crash dereferences. Read from the instance rather
   * than written as a constant, so that the compiler cannot turn the fault into a trap (SIGILL) or drop it. */
  volatile gint *never_set;
};

G_DEFINE_TYPE(EncoderdSegv, encoderd_segv, GST_TYPE_BASE_TRANSFORM)

enum { PROP_0, PROP_AFTER_BUFFERS };

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

/* In passthrough GstBaseTransform still shows each buffer to transform_ip (not writable), on the streaming thread. */
static GstFlowReturn encoderd_segv_transform_ip(GstBaseTransform *trans, GstBuffer *buf) {
  EncoderdSegv *self = ENCODERD_SEGV(trans);
  if (++self->seen <= self->after_buffers) return GST_FLOW_OK;
  /* One line a test can find in the service's output, so that it knows this crash from any other. */
  fprintf(stderr, "encoderdsegv: dereferencing NULL after %u buffers\n", self->after_buffers);
  /* A test crashes hosts on purpose and often: no core file in the tree, no core handler's work on a shared machine. */
  setrlimit(RLIMIT_CORE, &(struct rlimit) {0, 0});
  *self->never_set = 1;
  return GST_FLOW_OK;
}

static void encoderd_segv_set_property(GObject *obj, guint id, const GValue *value, GParamSpec *pspec) {
  if (id == PROP_AFTER_BUFFERS) ENCODERD_SEGV(obj)->after_buffers = g_value_get_uint(value);
  else G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
}

static void encoderd_segv_get_property(GObject *obj, guint id, GValue *value, GParamSpec *pspec) {
  if (id == PROP_AFTER_BUFFERS) g_value_set_uint(value, ENCODERD_SEGV(obj)->after_buffers);
  else G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, pspec);
}

static void encoderd_segv_class_init(EncoderdSegvClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  gobject_class->set_property = encoderd_segv_set_property;
  gobject_class->get_property = encoderd_segv_get_property;
  g_object_class_install_property(gobject_class, PROP_AFTER_BUFFERS,
    g_param_spec_uint("after-buffers", "After buffers", "Buffers passed through before the segfault", 0, G_MAXUINT, 30,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS));
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  gst_element_class_set_static_metadata(element_class, "encoderd segfault (tests only)", "Filter",
    "Passes buffers through, then dereferences a NULL pointer", "encoderd");
  GST_BASE_TRANSFORM_CLASS(klass)->transform_ip = encoderd_segv_transform_ip;
}

static void encoderd_segv_init(EncoderdSegv *self) {
  self->after_buffers = 30;
  gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
}

static gboolean plugin_init(GstPlugin *plugin) {
  return gst_element_register(plugin, "encoderdsegv", GST_RANK_NONE, TYPE_ENCODERD_SEGV);
}

#define PACKAGE "encoderd"
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, encoderdtest, "encoderd's test-only elements", plugin_init,
  "0", "LGPL", PACKAGE, "https://localhost/encoderd")
