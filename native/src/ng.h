/* The small macro vocabulary every binding file uses, so that each binding function reads as intent:
 * argument checks, status checks and errors thrown with a code (see index.d.ts NativeErrorCode).
 *
 * The error path. Every NG_ macro that checks something returns NULL from the binding on failure, at any line. So a
 * binding holds what it takes in automatic cleanup variables (GLib's g_autofree, g_autoptr, g_auto), never in plain
 * pointers freed at the end: every return, thrown or not, frees them, and nothing is freed twice. What is handed on
 * (to a struct, a list, the caller) leaves with g_steal_pointer. No cleanup labels, no frees before a throw. A
 * struct a binding builds up before handing it on (a DeviceMonitor's Monitor, a setState job) has a
 * G_DEFINE_AUTOPTR_CLEANUP_FUNC that undoes whatever of it exists, and so does the creator's reference of an object
 * with its own reference counting (ng_pipeline, ng_rtsp); once such an object runs threads, the one failure branch
 * that follows calls its destroy function (which stops it, and frees nothing) before the throw. The native engine
 * host (native/host/) keeps the same idiom for its FALSE/NULL returns (g_auto(hc_error), g_autoptr(hs_sampler)), and
 * so do encoderd's elements (native/src/elements/) for their error returns (a buffer a vfunc owns, libcodec2's state). */
#ifndef ENCODERD_NG_H
#define ENCODERD_NG_H
#include <node_api.h>
#include <gst/gst.h>
#include "gst-core.h"

/* Throws an Error whose .code is code, and returns NULL from the binding. */
#define NG_THROW(code, msg) do { napi_throw_error(env, code, msg); return NULL; } while (0)

/* Any napi call that fails throws NG_ERR_ARG with the call's text. */
#define NG_CALL(call) do { if ((call) != napi_ok) NG_THROW("NG_ERR_ARG", "napi call failed: " #call); } while (0)

/* Declares argc/argv/self for a binding with at most n arguments. */
#define NG_ARGV(n) \
  size_t argc = (n); napi_value argv[(n) > 0 ? (n) : 1]; napi_value self; \
  NG_CALL(napi_get_cb_info(env, info, &argc, argv, &self, NULL))

#define NG_ARGC_AT_LEAST(n) do { if (argc < (n)) NG_THROW("NG_ERR_ARG", "expected " #n " arguments"); } while (0)

#define NG_TYPE_ASSERT(v, t, msg) do { napi_valuetype _t; NG_CALL(napi_typeof(env, (v), &_t)); \
  if (_t != (t)) NG_THROW("NG_ERR_ARG", msg); } while (0)

#define NG_INT64(var, v) int64_t var; do { NG_TYPE_ASSERT(v, napi_number, #var " must be a number"); \
  NG_CALL(napi_get_value_int64(env, (v), &var)); } while (0)

#define NG_EXPORT_FUNCTION(exports, name, fn) do { napi_value _f; \
  NG_CALL(napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &_f)); \
  NG_CALL(napi_set_named_property(env, exports, name, _f)); } while (0)

/* NG_THROW with a printf-style message. */
#define NG_THROWF(code, ...) do { char _m[1024]; g_snprintf(_m, sizeof _m, __VA_ARGS__); NG_THROW(code, _m); } while (0)

/* Copies a JS string argument into a new C string, freed when the binding returns (also on a throw); keep it
 * beyond with g_steal_pointer. */
#define NG_STRING_AUTO(var, v) g_autofree char *var = NULL; do { size_t _len; \
  NG_TYPE_ASSERT(v, napi_string, #var " must be a string"); \
  NG_CALL(napi_get_value_string_utf8(env, (v), NULL, 0, &_len)); var = g_malloc(_len + 1); \
  NG_CALL(napi_get_value_string_utf8(env, (v), var, _len + 1, &_len)); } while (0)

/* Sets obj[key] to a JS string / number / boolean; returns NULL from the binding on failure. */
#define NG_SET_STRING(obj, key, str) do { napi_value _v; \
  NG_CALL(napi_create_string_utf8(env, (str) ? (str) : "", NAPI_AUTO_LENGTH, &_v)); \
  NG_CALL(napi_set_named_property(env, obj, key, _v)); } while (0)
#define NG_SET_NUMBER(obj, key, num) do { napi_value _v; NG_CALL(napi_create_double(env, (double) (num), &_v)); \
  NG_CALL(napi_set_named_property(env, obj, key, _v)); } while (0)
#define NG_SET_BOOL(obj, key, b) do { napi_value _v; NG_CALL(napi_get_boolean(env, (b), &_v)); \
  NG_CALL(napi_set_named_property(env, obj, key, _v)); } while (0)

/* An Error object with .code set, for rejecting promises. */
napi_value ng_error(napi_env env, const char *code, const char *msg);

/* The GstPipeline behind a JS Pipeline (a new ref), or NULL with NG_ERR_ARG / NG_ERR_DESTROYED thrown. */
GstElement *ng_pipeline_unwrap(napi_env env, napi_value obj);

/* Each binding file registers its classes and functions on exports. */
napi_value ng_pipeline_init(napi_env env, napi_value exports);
napi_value ng_rtsp_init(napi_env env, napi_value exports);
napi_value ng_devices_init(napi_env env, napi_value exports);
napi_value ng_memory_init(napi_env env, napi_value exports);

/* What an environment's cleanup hook closes (addon.c): each class registers the objects it creates and unregisters
 * them when they are closed or collected, so a terminated worker_thread or an exiting process leaves nothing
 * running. JS thread only. */
typedef void (*ng_close_fn)(void *obj);
void ng_track(napi_env env, void *obj, ng_close_fn close);
void ng_untrack(napi_env env, void *obj);

/* The GMainContext the addon's main-loop thread runs (RTSP servers, bus watches attach here). */
GMainContext *ng_main_context(void);
#endif
