/* The test-only addon (encoderd-fake-cameras.node): the bindings of the fake camera provider. Built by
 * `node scripts/build-native.mjs --test` (which `npm test` runs through setup.mjs --test), never into encoderd.node,
 * so production has no fake device code. It shares the process's GStreamer with encoderd.node, whose init() must
 * have run first. */
#include "../src/ng.h"
#include "fake-camera-provider.h"

static napi_value throw_fake_error(napi_env env, const GError *err) {
  NG_THROW(err->code == ENCODERD_FAKE_CAMERA_ERROR_STATE ? "NG_ERR_STATE" : "NG_ERR_ARG", err->message);
}

static napi_value fake_register(napi_env env, napi_callback_info info) {
  if (!gst_is_initialized()) NG_THROW("NG_ERR_INIT", "init() of encoderd.node has not been called");
  if (!encoderd_fake_camera_register()) NG_THROW("NG_ERR_INIT", "could not register the fake camera provider");
  return NULL;
}

static napi_value fake_add(napi_env env, napi_callback_info info) {
  NG_ARGV(3);
  NG_ARGC_AT_LEAST(3);
  NG_STRING_AUTO(path, argv[0]);
  NG_STRING_AUTO(name, argv[1]);
  NG_STRING_AUTO(caps, argv[2]);
  g_autoptr(GError) err = NULL;
  if (!encoderd_fake_camera_add(path, name, caps, &err)) return throw_fake_error(env, err);
  return NULL;
}

static napi_value fake_remove(napi_env env, napi_callback_info info) {
  NG_ARGV(1);
  NG_ARGC_AT_LEAST(1);
  NG_STRING_AUTO(path, argv[0]);
  g_autoptr(GError) err = NULL;
  if (!encoderd_fake_camera_remove(path, &err)) return throw_fake_error(env, err);
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  NG_EXPORT_FUNCTION(exports, "registerFakeCameraProvider", fake_register);
  NG_EXPORT_FUNCTION(exports, "fakeCameraAdd", fake_add);
  NG_EXPORT_FUNCTION(exports, "fakeCameraRemove", fake_remove);
  return exports;
}

NAPI_MODULE(encoderd_fake_cameras, Init)
