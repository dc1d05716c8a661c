/* DeviceMonitor: a GstDeviceMonitor whose bus is delivered to JS. (The fake camera provider of the tests is a
 * separate addon, native/test-addon/.)
 *
 * Bus messages are taken by a sync handler on the monitor's bus rather than a watch on the main loop: device
 * messages come from whichever thread the provider posts from (GUdev's for V4L2, the JS thread for the fake),
 * the handler converts the device to plain C data there, queues it on a thread-safe function and drops the
 * message, so nothing piles up on a bus and order is kept. JS objects are built on the JS thread only.
 *
 * Devices present when the monitor starts are returned by start() AND arrive afterwards as 'added' events
 * (providers announce them with device_add while starting, as v4l2deviceprovider does), so the JS side must
 * dedupe by path. */
#include "ng.h"

/* ---- plain C snapshot of a GstDevice ---- */

typedef struct {
  gchar *media;
  gchar *format;
  gint width, height;
  gboolean has_width, has_height;
  GPtrArray *framerates; /* "n/d" strings */
} CapsData;

typedef struct {
  gchar *name;
  gchar *device_class;
  gchar *path;
  gchar *driver;
  GArray *caps;          /* CapsData */
  GPtrArray *prop_keys;
  GPtrArray *prop_values;
} DeviceData;

typedef struct {
  gboolean added;
  DeviceData *device;
} DeviceEvent;

static void caps_data_clear(gpointer p) {
  CapsData *c = p;
  g_free(c->media);
  g_free(c->format);
  g_ptr_array_unref(c->framerates);
}

static void device_data_free(DeviceData *d) {
  g_free(d->name);
  g_free(d->device_class);
  g_free(d->path);
  g_free(d->driver);
  g_array_unref(d->caps);
  g_ptr_array_unref(d->prop_keys);
  g_ptr_array_unref(d->prop_values);
  g_free(d);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC(DeviceData, device_data_free)

static void device_event_free(DeviceEvent *ev) {
  device_data_free(ev->device);
  g_free(ev);
}

/* A fixed fraction gives itself, a list each member, a range its min and max. */
static void collect_framerates(GPtrArray *out, const GValue *v) {
  if (GST_VALUE_HOLDS_FRACTION(v)) {
    g_ptr_array_add(out, g_strdup_printf("%d/%d", gst_value_get_fraction_numerator(v),
                                         gst_value_get_fraction_denominator(v)));
  } else if (GST_VALUE_HOLDS_FRACTION_RANGE(v)) {
    collect_framerates(out, gst_value_get_fraction_range_min(v));
    collect_framerates(out, gst_value_get_fraction_range_max(v));
  } else if (GST_VALUE_HOLDS_LIST(v)) {
    for (guint i = 0; i < gst_value_list_get_size(v); i++) collect_framerates(out, gst_value_list_get_value(v, i));
  } else if (GST_VALUE_HOLDS_ARRAY(v)) {
    for (guint i = 0; i < gst_value_array_get_size(v); i++) collect_framerates(out, gst_value_array_get_value(v, i));
  }
}

static gboolean collect_property(GQuark field, const GValue *value, gpointer user_data) {
  DeviceData *d = user_data;
  gchar *s = G_VALUE_HOLDS_STRING(value) ? g_value_dup_string(value) : gst_value_serialize(value);
  if (s) {
    g_ptr_array_add(d->prop_keys, g_strdup(g_quark_to_string(field)));
    g_ptr_array_add(d->prop_values, s);
  }
  return TRUE;
}

/* Safe on any thread: touches only GStreamer. */
static DeviceData *device_data_new(GstDevice *device) {
  DeviceData *d = g_new0(DeviceData, 1);
  d->name = gst_device_get_display_name(device);
  d->device_class = gst_device_get_device_class(device);
  d->caps = g_array_new(FALSE, TRUE, sizeof(CapsData));
  g_array_set_clear_func(d->caps, caps_data_clear);
  d->prop_keys = g_ptr_array_new_with_free_func(g_free);
  d->prop_values = g_ptr_array_new_with_free_func(g_free);

  GstStructure *props = gst_device_get_properties(device);
  if (props) {
    static const char *path_keys[] = { "device.path", "api.v4l2.path", "object.path" };
    for (guint i = 0; i < G_N_ELEMENTS(path_keys) && !d->path; i++)
      d->path = g_strdup(gst_structure_get_string(props, path_keys[i]));
    d->driver = g_strdup(gst_structure_get_string(props, "v4l2.device.driver"));
    gst_structure_foreach(props, collect_property, d);
    gst_structure_free(props);
  }

  GstCaps *caps = gst_device_get_caps(device);
  if (caps) {
    for (guint i = 0; i < gst_caps_get_size(caps); i++) {
      const GstStructure *s = gst_caps_get_structure(caps, i);
      CapsData c = { 0 };
      c.media = g_strdup(gst_structure_get_name(s));
      c.format = g_strdup(gst_structure_get_string(s, "format"));
      c.has_width = gst_structure_get_int(s, "width", &c.width);
      c.has_height = gst_structure_get_int(s, "height", &c.height);
      c.framerates = g_ptr_array_new_with_free_func(g_free);
      const GValue *fr = gst_structure_get_value(s, "framerate");
      if (fr) collect_framerates(c.framerates, fr);
      g_array_append_val(d->caps, c);
    }
    gst_caps_unref(caps);
  }
  return d;
}

/* ---- JS conversion (JS thread only) ---- */

static napi_value js_string_or_null(napi_env env, const char *s) {
  napi_value v;
  if (s) NG_CALL(napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v));
  else NG_CALL(napi_get_null(env, &v));
  return v;
}

static napi_value set_string(napi_env env, napi_value obj, const char *key, const char *s) {
  napi_value v = js_string_or_null(env, s);
  if (!v) return NULL;
  NG_CALL(napi_set_named_property(env, obj, key, v));
  return obj;
}

static napi_value set_int(napi_env env, napi_value obj, const char *key, gint n) {
  napi_value v;
  NG_CALL(napi_create_int32(env, n, &v));
  NG_CALL(napi_set_named_property(env, obj, key, v));
  return obj;
}

static napi_value caps_to_js(napi_env env, const CapsData *c) {
  napi_value obj, rates;
  NG_CALL(napi_create_object(env, &obj));
  if (!set_string(env, obj, "media", c->media)) return NULL;
  if (c->format && !set_string(env, obj, "format", c->format)) return NULL;
  if (c->has_width && !set_int(env, obj, "width", c->width)) return NULL;
  if (c->has_height && !set_int(env, obj, "height", c->height)) return NULL;
  NG_CALL(napi_create_array_with_length(env, c->framerates->len, &rates));
  for (guint i = 0; i < c->framerates->len; i++) {
    napi_value r = js_string_or_null(env, g_ptr_array_index(c->framerates, i));
    if (!r) return NULL;
    NG_CALL(napi_set_element(env, rates, i, r));
  }
  NG_CALL(napi_set_named_property(env, obj, "framerates", rates));
  return obj;
}

static napi_value device_to_js(napi_env env, const DeviceData *d) {
  napi_value obj, caps, props;
  NG_CALL(napi_create_object(env, &obj));
  if (!set_string(env, obj, "name", d->name ? d->name : "")) return NULL;
  if (!set_string(env, obj, "deviceClass", d->device_class ? d->device_class : "")) return NULL;
  if (!set_string(env, obj, "path", d->path)) return NULL;
  if (!set_string(env, obj, "driver", d->driver)) return NULL;
  NG_CALL(napi_create_array_with_length(env, d->caps->len, &caps));
  for (guint i = 0; i < d->caps->len; i++) {
    napi_value c = caps_to_js(env, &g_array_index(d->caps, CapsData, i));
    if (!c) return NULL;
    NG_CALL(napi_set_element(env, caps, i, c));
  }
  NG_CALL(napi_set_named_property(env, obj, "caps", caps));
  NG_CALL(napi_create_object(env, &props));
  for (guint i = 0; i < d->prop_keys->len; i++)
    if (!set_string(env, props, g_ptr_array_index(d->prop_keys, i), g_ptr_array_index(d->prop_values, i)))
      return NULL;
  NG_CALL(napi_set_named_property(env, obj, "properties", props));
  return obj;
}

/* ---- event delivery ----
 * A Sink belongs to the monitor's bus (freed with it, through the sync handler's destroy notify) and points at
 * the Delivery of the current start(), if any. A Delivery owns one thread-safe function; stop() detaches it
 * under the Sink's lock, so the sync handler never calls a released function. */

typedef struct Delivery Delivery;

typedef struct {
  gint refcount;
  GMutex lock;
  Delivery *current;
  guint64 dropped;   /* events a full queue refused; atomic */
} Sink;

/* The bound of the event queue to JS (a hot-plug storm while JS stalls costs this many events at most). */
#define NG_DEVICE_QUEUE_MAX 256

struct Delivery {
  Sink *sink;
  napi_threadsafe_function tsfn;
  gboolean stopped; /* JS thread only */
};

static Sink *sink_ref(Sink *s) {
  g_atomic_int_inc(&s->refcount);
  return s;
}

static void sink_unref(gpointer p) {
  Sink *s = p;
  if (g_atomic_int_dec_and_test(&s->refcount)) {
    g_mutex_clear(&s->lock);
    g_free(s);
  }
}

static void on_device_message(Sink *sink, GstMessage *msg) {
  GstMessageType type = GST_MESSAGE_TYPE(msg);
  if (type != GST_MESSAGE_DEVICE_ADDED && type != GST_MESSAGE_DEVICE_REMOVED) return;
  GstDevice *device = NULL;
  if (type == GST_MESSAGE_DEVICE_ADDED) gst_message_parse_device_added(msg, &device);
  else gst_message_parse_device_removed(msg, &device);
  DeviceEvent *ev = g_new0(DeviceEvent, 1);
  ev->added = type == GST_MESSAGE_DEVICE_ADDED;
  ev->device = device_data_new(device);
  gst_object_unref(device);
  g_mutex_lock(&sink->lock);
  napi_status s = sink->current ? napi_call_threadsafe_function(sink->current->tsfn, ev, napi_tsfn_nonblocking) : napi_closing;
  g_mutex_unlock(&sink->lock);
  if (s == napi_queue_full) __atomic_add_fetch(&sink->dropped, 1, __ATOMIC_RELAXED);
  if (s != napi_ok) device_event_free(ev);
}

/* Answering DROP, the handler owns the message and unrefs it (GstBusSyncHandler's contract). */
static GstBusSyncReply on_bus_sync(GstBus *bus, GstMessage *msg, gpointer user_data) {
  on_device_message(user_data, msg);
  gst_message_unref(msg);
  return GST_BUS_DROP;
}

static void deliver_event(napi_env env, napi_value js_cb, void *context, void *data) {
  DeviceEvent *ev = data;
  Delivery *d = context; /* already freed when env is NULL (the queue is emptied after finalize) */
  if (env && js_cb && !d->stopped) {
    napi_value obj, device, type, undefined;
    device = device_to_js(env, ev->device);
    if (device && napi_create_object(env, &obj) == napi_ok &&
        napi_create_string_utf8(env, ev->added ? "added" : "removed", NAPI_AUTO_LENGTH, &type) == napi_ok &&
        napi_set_named_property(env, obj, "type", type) == napi_ok &&
        napi_set_named_property(env, obj, "device", device) == napi_ok &&
        napi_get_undefined(env, &undefined) == napi_ok) {
      napi_call_function(env, undefined, js_cb, 1, &obj, NULL);
    }
  }
  device_event_free(ev);
}

/* What a Delivery holds: all there is to undo before its thread-safe function exists. */
static void delivery_free(Delivery *d) {
  sink_unref(d->sink);
  g_free(d);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Delivery, delivery_free)

static void delivery_finalize(napi_env env, void *data, void *hint) {
  Delivery *d = data;
  Sink *s = d->sink;
  g_mutex_lock(&s->lock);
  if (s->current == d) s->current = NULL;
  g_mutex_unlock(&s->lock);
  delivery_free(d);
}

/* Detaches and aborts the current delivery: events still queued are dropped, not delivered after stop(). */
static void delivery_detach(Sink *s) {
  g_mutex_lock(&s->lock);
  Delivery *d = s->current;
  s->current = NULL;
  g_mutex_unlock(&s->lock);
  if (d) {
    d->stopped = TRUE;
    napi_release_threadsafe_function(d->tsfn, napi_tsfn_abort);
  }
}

/* ---- DeviceMonitor ---- */

typedef struct {
  GstDeviceMonitor *monitor;
  Sink *sink;          /* owned by the monitor's bus */
  napi_ref callback;
  napi_ref self;       /* weak while stopped; strong while started, so a running monitor is not collected */
  gboolean started;
} Monitor;

static char *js_string(napi_env env, napi_value v, const char *what) {
  napi_valuetype t;
  size_t len;
  char msg[128];
  NG_CALL(napi_typeof(env, v, &t));
  if (t != napi_string) {
    g_snprintf(msg, sizeof msg, "%s must be a string", what);
    NG_THROW("NG_ERR_ARG", msg);
  }
  NG_CALL(napi_get_value_string_utf8(env, v, NULL, 0, &len));
  g_autofree char *s = g_malloc(len + 1);
  if (napi_get_value_string_utf8(env, v, s, len + 1, &len) != napi_ok) NG_THROW("NG_ERR_ARG", "could not read a string");
  return g_steal_pointer(&s);
}

static void monitor_stop_internal(Monitor *m) {
  if (!m->started) return;
  gst_device_monitor_stop(m->monitor);
  delivery_detach(m->sink);
  m->started = FALSE;
}

static void monitor_close(void *data) { monitor_stop_internal(data); }

/* What a Monitor holds outside JS: all there is to undo before it is wrapped. */
static void monitor_free(Monitor *m) {
  gst_object_unref(m->monitor);
  g_free(m);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Monitor, monitor_free)

static void monitor_finalize(napi_env env, void *data, void *hint) {
  Monitor *m = data;
  ng_untrack(env, m);
  /* Started here only at environment teardown: otherwise the strong self reference keeps it alive. */
  monitor_stop_internal(m);
  if (m->callback) napi_delete_reference(env, m->callback);
  napi_delete_reference(env, m->self);
  monitor_free(m);
}

static napi_value monitor_new(napi_env env, napi_callback_info info) {
  NG_ARGV(2);
  NG_ARGC_AT_LEAST(2);
  napi_value target;
  NG_CALL(napi_get_new_target(env, info, &target));
  if (!target) NG_THROW("NG_ERR_ARG", "DeviceMonitor must be called with new");
  if (!gst_is_initialized()) NG_THROW("NG_ERR_INIT", "init() has not been called");
  bool is_array;
  NG_CALL(napi_is_array(env, argv[0], &is_array));
  if (!is_array) NG_THROW("NG_ERR_ARG", "classes must be an array of strings");
  NG_TYPE_ASSERT(argv[1], napi_function, "onEvent must be a function");

  uint32_t n;
  NG_CALL(napi_get_array_length(env, argv[0], &n));
  g_autoptr(GPtrArray) classes = g_ptr_array_new_with_free_func(g_free);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    NG_CALL(napi_get_element(env, argv[0], i, &item));
    char *cls = js_string(env, item, "each class");
    if (!cls) return NULL;
    g_ptr_array_add(classes, cls);
  }

  g_autoptr(Monitor) fresh = g_new0(Monitor, 1);
  fresh->monitor = gst_device_monitor_new();
  if (g_object_is_floating(fresh->monitor)) gst_object_ref_sink(fresh->monitor);
  /* No class means every device, as gst_device_monitor_start does without filters. */
  for (guint i = 0; i < classes->len; i++) gst_device_monitor_add_filter(fresh->monitor, g_ptr_array_index(classes, i), NULL);

  fresh->sink = g_new0(Sink, 1);
  fresh->sink->refcount = 1;
  g_mutex_init(&fresh->sink->lock);
  GstBus *bus = gst_device_monitor_get_bus(fresh->monitor);
  gst_bus_set_sync_handler(bus, on_bus_sync, fresh->sink, sink_unref);
  gst_object_unref(bus);

  if (napi_wrap(env, self, fresh, monitor_finalize, NULL, &fresh->self) != napi_ok)
    NG_THROW("NG_ERR_ARG", "could not wrap the DeviceMonitor");
  Monitor *m = g_steal_pointer(&fresh);  /* the JS object's now: monitor_finalize undoes the rest */
  ng_track(env, m, monitor_close);
  if (napi_create_reference(env, argv[1], 1, &m->callback) != napi_ok) NG_THROW("NG_ERR_ARG", "could not wrap the DeviceMonitor");
  return self;
}

static Monitor *monitor_unwrap(napi_env env, napi_value self) {
  Monitor *m = NULL;
  if (napi_unwrap(env, self, (void **) &m) != napi_ok || !m) NG_THROW("NG_ERR_ARG", "not a DeviceMonitor");
  return m;
}

static napi_value monitor_start(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  Monitor *m = monitor_unwrap(env, self);
  if (!m) return NULL;
  if (m->started) NG_THROW("NG_ERR_STATE", "the device monitor is started already");

  napi_value cb, name;
  NG_CALL(napi_get_reference_value(env, m->callback, &cb));
  NG_CALL(napi_create_string_utf8(env, "encoderd.DeviceMonitor", NAPI_AUTO_LENGTH, &name));
  g_autoptr(Delivery) fresh = g_new0(Delivery, 1);
  fresh->sink = sink_ref(m->sink);
  if (napi_create_threadsafe_function(env, cb, NULL, name, NG_DEVICE_QUEUE_MAX, 1, fresh, delivery_finalize, fresh,
                                      deliver_event, &fresh->tsfn) != napi_ok)
    NG_THROW("NG_ERR_ARG", "could not create the event function");
  Delivery *d = g_steal_pointer(&fresh);  /* the function's now: delivery_finalize */
  g_mutex_lock(&m->sink->lock);
  m->sink->current = d;
  g_mutex_unlock(&m->sink->lock);

  if (!gst_device_monitor_start(m->monitor)) {
    delivery_detach(m->sink);
    NG_THROW("NG_ERR_STATE", "the device monitor could not start: no device provider of these classes started");
  }
  m->started = TRUE;
  NG_CALL(napi_reference_ref(env, m->self, NULL));

  g_autolist(GstDevice) devices = gst_device_monitor_get_devices(m->monitor);
  napi_value out = NULL;
  guint i = 0;
  if (napi_create_array(env, &out) != napi_ok) out = NULL;
  for (GList *l = devices; l && out; l = l->next, i++) {
    g_autoptr(DeviceData) dd = device_data_new(l->data);
    napi_value v = device_to_js(env, dd);
    if (!v || napi_set_element(env, out, i, v) != napi_ok) out = NULL;
  }
  if (!out) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (!pending) NG_THROW("NG_ERR_ARG", "could not convert the devices");
  }
  return out;
}

static napi_value monitor_stop(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  Monitor *m = monitor_unwrap(env, self);
  if (!m) return NULL;
  if (!m->started) return NULL;
  monitor_stop_internal(m);
  NG_CALL(napi_reference_unref(env, m->self, NULL));
  return NULL;
}

static napi_value monitor_dropped_events(napi_env env, napi_callback_info info) {
  NG_ARGV(0);
  Monitor *m = monitor_unwrap(env, self);
  if (!m) return NULL;
  napi_value out;
  NG_CALL(napi_create_double(env, (double) __atomic_load_n(&m->sink->dropped, __ATOMIC_RELAXED), &out));
  return out;
}

napi_value ng_devices_init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
    { "droppedEvents", NULL, monitor_dropped_events, NULL, NULL, NULL, napi_default, NULL },
    { "start", NULL, monitor_start, NULL, NULL, NULL, napi_default, NULL },
    { "stop", NULL, monitor_stop, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_value cls;
  NG_CALL(napi_define_class(env, "DeviceMonitor", NAPI_AUTO_LENGTH, monitor_new, NULL,
                            G_N_ELEMENTS(methods), methods, &cls));
  NG_CALL(napi_set_named_property(env, exports, "DeviceMonitor", cls));
  return exports;
}
