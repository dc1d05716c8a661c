/* Placeholder until the binding lands. */
#include "ng.h"

napi_value ng_devices_init(napi_env env, napi_value exports) { return exports; }
