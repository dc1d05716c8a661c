/* JS <-> GValue for element properties: the JS side of value-core.c. */
#include "value.h"

gboolean ng_value_from_js(napi_env env, napi_value v, GParamSpec *pspec, GValue *out, char **why) {
  napi_valuetype jt;
  if (napi_typeof(env, v, &jt) != napi_ok) {
    *why = g_strdup_printf("cannot read the value for %s", pspec->name);
    return FALSE;
  }
  if (jt == napi_string) {
    size_t len;
    napi_get_value_string_utf8(env, v, NULL, 0, &len);
    g_autofree char *s = g_malloc(len + 1);
    napi_get_value_string_utf8(env, v, s, len + 1, &len);
    return ng_value_from_text(s, pspec, out, why);
  }
  if (jt == napi_number) {
    double d;
    napi_get_value_double(env, v, &d);
    return ng_value_from_number(d, pspec, out, why);
  }
  if (jt == napi_boolean) {
    bool b;
    napi_get_value_bool(env, v, &b);
    return ng_value_from_bool(b, pspec, out, why);
  }
  return ng_value_mismatch(pspec, why);
}

napi_value ng_value_to_js(napi_env env, const GValue *v) {
  napi_value out = NULL;
  napi_status s;
  switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_BOOLEAN: s = napi_get_boolean(env, g_value_get_boolean(v), &out); break;
    case G_TYPE_INT: s = napi_create_double(env, g_value_get_int(v), &out); break;
    case G_TYPE_UINT: s = napi_create_double(env, g_value_get_uint(v), &out); break;
    case G_TYPE_LONG: s = napi_create_double(env, (double) g_value_get_long(v), &out); break;
    case G_TYPE_ULONG: s = napi_create_double(env, (double) g_value_get_ulong(v), &out); break;
    case G_TYPE_INT64: s = napi_create_double(env, (double) g_value_get_int64(v), &out); break;
    case G_TYPE_UINT64: s = napi_create_double(env, (double) g_value_get_uint64(v), &out); break;
    case G_TYPE_DOUBLE: s = napi_create_double(env, g_value_get_double(v), &out); break;
    case G_TYPE_FLOAT: s = napi_create_double(env, g_value_get_float(v), &out); break;
    default: {
      /* Strings and enum nicks, then caps, structures, flags and fractions; null for what has no simple form. */
      g_autofree char *str = ng_value_to_string(v);
      if (!str) str = ng_value_to_text(v);
      s = str ? napi_create_string_utf8(env, str, NAPI_AUTO_LENGTH, &out) : napi_get_null(env, &out);
    }
  }
  return s == napi_ok ? out : NULL;
}
