/* The events every pipeline of the host sends alike (the main one and its companions), as protocol.ts HostEvent. */
#include "commands.h"

void hc_emit_error(const ng_msg *m) {
  JsonBuilder *b = hc_event("error");
  json_builder_set_member_name(b, "message");
  json_builder_add_string_value(b, m->text ? m->text : "");
  json_builder_set_member_name(b, "source");
  json_builder_add_string_value(b, m->source ? m->source : "");
  json_builder_set_member_name(b, "debug");
  json_builder_add_string_value(b, m->debug ? m->debug : "");
  hc_emit(b);
}

/* The sample's bytes as base64: the channel carries JSON text (native-host.ts gives the core bytes again). */
void hc_emit_sample(const ng_msg *m) {
  g_autofree char *data = g_base64_encode(m->data ? m->data : (const guint8 *) "", m->size);
  JsonBuilder *b = hc_event("sample");
  json_builder_set_member_name(b, "sink");
  json_builder_add_string_value(b, m->source);
  json_builder_set_member_name(b, "data");
  json_builder_add_string_value(b, data);
  json_builder_set_member_name(b, "pts");
  json_builder_add_int_value(b, m->pts);
  hc_emit(b);
}
