/* Addon entry: GStreamer init, static registration of encoderd's own elements, and one main-loop thread that
 * every RTSP server and bus watch attaches to. Bindings live in pipeline.c, rtsp.c and devices.c.
 *
 * Environments. Every Node environment that loads the addon (the main thread, each worker_thread) gets an ng_env as
 * its instance data and a cleanup hook. The main loop is shared by the process: each environment that called init()
 * holds it once. When an environment ends (a worker terminated, the process exiting) the hook closes what that
 * environment still has open (pipelines to NULL, RTSP servers unbound, device monitors stopped; their finalizers,
 * which run later, then find nothing to do) and lets go of the loop; the last one quits it and joins its thread.
 * Node runs an addon's cleanup hooks in reverse order of registration: ours, added when the module loads, runs
 * after the environment's thread-safe functions are torn down and before its wrapped objects are finalized.
 * GStreamer itself stays initialised (gst_deinit is final for the process). */
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "ng.h"
#include "elements/elements.h"

typedef struct { void *obj; ng_close_fn close; } tracked;

typedef struct {
  gboolean holds_loop;       /* this environment called init() */
  GList *live;               /* tracked, newest first; JS thread only */
} ng_env;

static GMutex loop_lock;     /* guards everything below */
static GMainContext *main_context = NULL;
static GMainLoop *main_loop = NULL;
static GThread *loop_thread = NULL;
static guint loop_users = 0;

GMainContext *ng_main_context(void) { return main_context; }

static ng_env *env_data(napi_env env) {
  void *data = NULL;
  return napi_get_instance_data(env, &data) == napi_ok ? data : NULL;
}

void ng_track(napi_env env, void *obj, ng_close_fn close) {
  ng_env *e = env_data(env);
  if (!e) return;
  tracked *t = g_new(tracked, 1);
  t->obj = obj;
  t->close = close;
  e->live = g_list_prepend(e->live, t);
}

void ng_untrack(napi_env env, void *obj) {
  ng_env *e = env_data(env);
  for (GList *l = e ? e->live : NULL; l; l = l->next) {
    tracked *t = l->data;
    if (t->obj != obj) continue;
    e->live = g_list_delete_link(e->live, l);
    g_free(t);
    return;
  }
}

static gpointer loop_run(gpointer data) {
#ifdef __linux__
  /* A name to find it by (top -H, /proc/<pid>/task/<tid>/comm; the teardown test counts it). */
  prctl(PR_SET_NAME, "encoderd-loop");
#endif
  g_main_context_push_thread_default(main_context);
  g_main_loop_run(main_loop);
  g_main_context_pop_thread_default(main_context);
  return NULL;
}

static gboolean loop_quit(gpointer loop) {
  g_main_loop_quit(loop);
  return G_SOURCE_REMOVE;
}

static void loop_release(void) {
  g_mutex_lock(&loop_lock);
  if (--loop_users > 0) {
    g_mutex_unlock(&loop_lock);
    return;
  }
  /* Quit from inside the loop, so a quit before the thread has started running it is not lost. */
  g_main_context_invoke(main_context, loop_quit, main_loop);
  g_thread_join(loop_thread);
  g_clear_pointer(&main_loop, g_main_loop_unref);
  g_clear_pointer(&main_context, g_main_context_unref);
  loop_thread = NULL;
  g_mutex_unlock(&loop_lock);
}

static void env_cleanup(void *data) {
  ng_env *e = data;
  /* Each close untracks its object (and may not), so take the list first. */
  GList *live = e->live;
  e->live = NULL;
  for (GList *l = live; l; l = l->next) {
    tracked *t = l->data;
    t->close(t->obj);
  }
  g_list_free_full(live, g_free);
  if (e->holds_loop) loop_release();
  e->holds_loop = FALSE;
}

static void env_finalize(napi_env env, void *data, void *hint) {
  ng_env *e = data;
  g_list_free_full(e->live, g_free);
  g_free(e);
}

static napi_value ng_init(napi_env env, napi_callback_info info) {
  static gboolean registered = FALSE;
  ng_env *e = env_data(env);
  if (!e) NG_THROW("NG_ERR_INIT", "the addon has no environment data");
  if (e->holds_loop) return NULL;
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&loop_lock);
  g_autoptr(GError) err = NULL;
  if (!gst_init_check(NULL, NULL, &err)) NG_THROWF("NG_ERR_INIT", "gst_init failed: %s", err ? err->message : "unknown");
  if (!registered)
    registered = gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "encoderd",
                                            "Elements encoderd adds to GStreamer 1.22", encoderd_elements_init,
                                            ENCODERD_PLUGIN_VERSION, ENCODERD_PLUGIN_LICENSE, "encoderd", "encoderd",
                                            "https://localhost/encoderd");
  if (!main_loop) {
    main_context = g_main_context_new();
    main_loop = g_main_loop_new(main_context, FALSE);
    loop_thread = g_thread_new("encoderd-main-loop", loop_run, NULL);
  }
  loop_users++;
  e->holds_loop = TRUE;
  return NULL;
}

static napi_value ng_gst_version(napi_env env, napi_callback_info info) {
  g_autofree gchar *v = gst_version_string();
  napi_value out;
  NG_CALL(napi_create_string_utf8(env, v, NAPI_AUTO_LENGTH, &out));
  return out;
}

static napi_value ng_has_element(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_STRING_AUTO(name, argv[0]);
  g_autoptr(GstElementFactory) f = gst_element_factory_find(name);
  napi_value out;
  NG_CALL(napi_get_boolean(env, f != NULL, &out));
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  g_autofree ng_env *fresh = g_new0(ng_env, 1);
  if (napi_set_instance_data(env, fresh, env_finalize, NULL) != napi_ok)
    NG_THROW("NG_ERR_INIT", "could not set the addon's environment data");
  ng_env *e = g_steal_pointer(&fresh);  /* the environment's now: env_finalize frees it */
  NG_CALL(napi_add_env_cleanup_hook(env, env_cleanup, e));
  NG_EXPORT_FUNCTION(exports, "init", ng_init);
  NG_EXPORT_FUNCTION(exports, "gstVersion", ng_gst_version);
  NG_EXPORT_FUNCTION(exports, "hasElement", ng_has_element);
  if (!ng_pipeline_init(env, exports)) return NULL;
  if (!ng_rtsp_init(env, exports)) return NULL;
  if (!ng_devices_init(env, exports)) return NULL;
  if (!ng_memory_init(env, exports)) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
