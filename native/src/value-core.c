/* Property values from what a caller has (text, a number, a boolean) and back to text: the part of value conversion
 * that knows GStreamer and nothing of its caller. Strings go through gst_value_deserialize so that a caller can say
 * what a gst-launch line says (enum nicks, "a+b" flags, caps); numbers are checked, never silently truncated. */
#include <math.h>
#include "gst-core.h"

static gboolean fail(char **why, const char *fmt, const char *a, const char *b) {
  *why = g_strdup_printf(fmt, a, b);
  return FALSE;
}

/* A number into an integer-like or floating fundamental type; FALSE when it does not fit. */
static gboolean set_number(GValue *out, GType fundamental, GType type, double d) {
  gboolean integral = isfinite(d) && d == trunc(d);
  switch (fundamental) {
    case G_TYPE_DOUBLE: g_value_set_double(out, d); return TRUE;
    case G_TYPE_FLOAT: g_value_set_float(out, (float) d); return isfinite(d) ? fabs(d) <= G_MAXFLOAT : TRUE;
    case G_TYPE_INT: if (!integral || d < G_MININT || d > G_MAXINT) return FALSE; g_value_set_int(out, (gint) d); return TRUE;
    case G_TYPE_UINT: if (!integral || d < 0 || d > G_MAXUINT) return FALSE; g_value_set_uint(out, (guint) d); return TRUE;
    case G_TYPE_LONG: if (!integral || d < G_MINLONG || d > G_MAXLONG) return FALSE; g_value_set_long(out, (glong) d); return TRUE;
    case G_TYPE_ULONG: if (!integral || d < 0 || d > G_MAXULONG) return FALSE; g_value_set_ulong(out, (gulong) d); return TRUE;
    /* 2^63 and 2^64 are exact doubles; anything at or past them does not fit. */
    case G_TYPE_INT64: if (!integral || d < -9223372036854775808.0 || d >= 9223372036854775808.0) return FALSE;
      g_value_set_int64(out, (gint64) d); return TRUE;
    case G_TYPE_UINT64: if (!integral || d < 0 || d >= 18446744073709551616.0) return FALSE;
      g_value_set_uint64(out, (guint64) d); return TRUE;
    case G_TYPE_ENUM: {
      GEnumClass *k = g_type_class_ref(type);
      gboolean ok = integral && d >= G_MININT && d <= G_MAXINT && g_enum_get_value(k, (gint) d) != NULL;
      g_type_class_unref(k);
      if (ok) g_value_set_enum(out, (gint) d);
      return ok;
    }
    case G_TYPE_FLAGS: if (!integral || d < 0 || d > G_MAXUINT) return FALSE; g_value_set_flags(out, (guint) d); return TRUE;
  }
  return FALSE;
}

/* validate clamps into the pspec's range and says whether it had to: a clamp is a refusal here. */
static gboolean checked(GParamSpec *pspec, GValue *out, char **why) {
  if (!g_param_value_validate(pspec, out)) return TRUE;
  g_value_unset(out);
  return fail(why, "the value is out of range for %s (%s)", pspec->name, g_type_name(G_PARAM_SPEC_VALUE_TYPE(pspec)));
}

gboolean ng_value_mismatch(GParamSpec *pspec, char **why) {
  return fail(why, "the value does not fit %s (%s)", pspec->name, g_type_name(G_PARAM_SPEC_VALUE_TYPE(pspec)));
}

gboolean ng_value_from_text(const char *s, GParamSpec *pspec, GValue *out, char **why) {
  GType type = G_PARAM_SPEC_VALUE_TYPE(pspec);
  g_value_init(out, type);
  gboolean ok;
  if (G_TYPE_FUNDAMENTAL(type) == G_TYPE_STRING) { g_value_set_string(out, s); ok = TRUE; }
  else ok = gst_value_deserialize(out, s);
  if (!ok) { g_value_unset(out); return fail(why, "'%s' is not a valid %s", s, g_type_name(type)); }
  return checked(pspec, out, why);
}

gboolean ng_value_from_number(double d, GParamSpec *pspec, GValue *out, char **why) {
  GType type = G_PARAM_SPEC_VALUE_TYPE(pspec);
  g_value_init(out, type);
  if (!set_number(out, G_TYPE_FUNDAMENTAL(type), type, d)) { g_value_unset(out); return ng_value_mismatch(pspec, why); }
  return checked(pspec, out, why);
}

gboolean ng_value_from_bool(gboolean b, GParamSpec *pspec, GValue *out, char **why) {
  GType type = G_PARAM_SPEC_VALUE_TYPE(pspec);
  if (G_TYPE_FUNDAMENTAL(type) != G_TYPE_BOOLEAN) return ng_value_mismatch(pspec, why);
  g_value_init(out, type);
  g_value_set_boolean(out, b);
  return checked(pspec, out, why);
}

char *ng_value_to_string(const GValue *v) {
  switch (G_TYPE_FUNDAMENTAL(G_VALUE_TYPE(v))) {
    case G_TYPE_STRING: return g_value_dup_string(v);
    case G_TYPE_BOOLEAN: return g_strdup(g_value_get_boolean(v) ? "true" : "false");
    case G_TYPE_INT: return g_strdup_printf("%d", g_value_get_int(v));
    case G_TYPE_UINT: return g_strdup_printf("%u", g_value_get_uint(v));
    case G_TYPE_LONG: return g_strdup_printf("%ld", g_value_get_long(v));
    case G_TYPE_ULONG: return g_strdup_printf("%lu", g_value_get_ulong(v));
    case G_TYPE_INT64: return g_strdup_printf("%" G_GINT64_FORMAT, g_value_get_int64(v));
    case G_TYPE_UINT64: return g_strdup_printf("%" G_GUINT64_FORMAT, g_value_get_uint64(v));
    case G_TYPE_DOUBLE: return g_strdup_printf("%.17g", g_value_get_double(v));
    case G_TYPE_FLOAT: return g_strdup_printf("%.9g", (double) g_value_get_float(v));
    case G_TYPE_ENUM: {
      GEnumValue *e = g_enum_get_value(G_ENUM_CLASS(g_type_class_peek(G_VALUE_TYPE(v))), g_value_get_enum(v));
      return e ? g_strdup(e->value_nick) : g_strdup_printf("%d", g_value_get_enum(v));
    }
  }
  return NULL;
}

char *ng_value_to_text(const GValue *v) {
  GType t = G_VALUE_TYPE(v);
  /* Caps and structures as gst_caps_to_string writes them, not escaped the way serialisation does. */
  if (t == GST_TYPE_CAPS) return gst_value_get_caps(v) ? gst_caps_to_string(gst_value_get_caps(v)) : NULL;
  if (t == GST_TYPE_STRUCTURE) return gst_value_get_structure(v) ? gst_structure_to_string(gst_value_get_structure(v)) : NULL;
  /* A GstSample and other boxed or object values would be hex-dumped whole: no simple form. */
  if (G_TYPE_FUNDAMENTAL(t) == G_TYPE_FLAGS || t == GST_TYPE_FRACTION) return gst_value_serialize(v);
  return NULL;
}
