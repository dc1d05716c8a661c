/* Conversions between JS values and GValues of a property's type (setProperty/getProperty/elements()); the
 * conversions themselves are value-core.c's (gst-core.h), shared with the native engine host. */
#ifndef ENCODERD_VALUE_H
#define ENCODERD_VALUE_H
#include "ng.h"

/* Fills out (unset on entry) from a JS string/number/boolean for pspec's type (ng_value_from_text/number/bool). On
 * failure returns FALSE with a message in *why (g_free it) and leaves out unset. */
gboolean ng_value_from_js(napi_env env, napi_value v, GParamSpec *pspec, GValue *out, char **why);

/* A JS string/number/boolean for the value, or JS null when it has no simple form. NULL if napi failed. */
napi_value ng_value_to_js(napi_env env, const GValue *v);
#endif
