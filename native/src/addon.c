/* Addon entry: GStreamer init, static registration of encoderd's own elements, and one main-loop thread that
 * every RTSP server and bus watch attaches to. Bindings live in pipeline.c, rtsp.c and devices.c. */
#include "ng.h"
#include "elements/elements.h"

static GMainContext *main_context = NULL;
static GMainLoop *main_loop = NULL;
static GThread *loop_thread = NULL;

GMainContext *ng_main_context(void) { return main_context; }

const char *ng_state_name(GstState state) {
  switch (state) {
    case GST_STATE_VOID_PENDING: return "void-pending";
    case GST_STATE_NULL: return "null";
    case GST_STATE_READY: return "ready";
    case GST_STATE_PAUSED: return "paused";
    case GST_STATE_PLAYING: return "playing";
  }
  return "void-pending";
}

static gpointer loop_run(gpointer data) {
  g_main_context_push_thread_default(main_context);
  g_main_loop_run(main_loop);
  g_main_context_pop_thread_default(main_context);
  return NULL;
}

static napi_value ng_init(napi_env env, napi_callback_info info) {
  if (main_loop) return NULL;
  GError *err = NULL;
  if (!gst_init_check(NULL, NULL, &err)) {
    char msg[512];
    g_snprintf(msg, sizeof msg, "gst_init failed: %s", err ? err->message : "unknown");
    g_clear_error(&err);
    NG_THROW("NG_ERR_INIT", msg);
  }
  gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "encoderd",
                             "Elements encoderd adds to GStreamer 1.22", encoderd_elements_init,
                             ENCODERD_PLUGIN_VERSION, ENCODERD_PLUGIN_LICENSE, "encoderd", "encoderd",
                             "https://localhost/encoderd");
  main_context = g_main_context_new();
  main_loop = g_main_loop_new(main_context, FALSE);
  loop_thread = g_thread_new("encoderd-main-loop", loop_run, NULL);
  return NULL;
}

static napi_value ng_gst_version(napi_env env, napi_callback_info info) {
  gchar *v = gst_version_string();
  napi_value out;
  napi_status s = napi_create_string_utf8(env, v, NAPI_AUTO_LENGTH, &out);
  g_free(v);
  if (s != napi_ok) NG_THROW("NG_ERR_ARG", "could not create string");
  return out;
}

static napi_value ng_has_element(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_STRING(name, argv[0]);
  GstElementFactory *f = gst_element_factory_find(name);
  g_free(name);
  napi_value out;
  NG_CALL(napi_get_boolean(env, f != NULL, &out));
  if (f) gst_object_unref(f);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  NG_EXPORT_FUNCTION(exports, "init", ng_init);
  NG_EXPORT_FUNCTION(exports, "gstVersion", ng_gst_version);
  NG_EXPORT_FUNCTION(exports, "hasElement", ng_has_element);
  if (!ng_pipeline_init(env, exports)) return NULL;
  if (!ng_rtsp_init(env, exports)) return NULL;
  if (!ng_devices_init(env, exports)) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
