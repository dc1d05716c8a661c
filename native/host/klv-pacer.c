/* The KLV pacer (docs/klv.md; the timing of core/klv/pacer.ts, which the Node host runs): keeps the output's KLV
 * appsrc fed while the pipeline runs. GStreamer 1.22's mpegtsmux outputs a buffer only when every input has one
 * queued, then releases video only up to the PTS of the KLV input's latest buffer; so for such an output (`ahead`)
 * a packet goes out every KLV_PERIOD_MS stamped KLV_LEAD_NS ahead of the running time, and an output that waits for
 * nothing (`due`) gets its packets stamped now.
 *
 * What the packets say is the core's: it encodes the ST 0601 local set for the pipeline's position (st0601.ts) and
 * hands it here with the offset of its timestamp value. Before each push the host writes the UTC microseconds of the
 * wall time the packet's PTS stands for there and recomputes the checksum (the set's last two bytes). Without a
 * position, the source's own KLV (the relay appsink's samples) goes out as it came while it arrives. */
#include "commands.h"

#define KLV_PERIOD_MS 100
#define KLV_LEAD_NS G_GINT64_CONSTANT(300000000)
/* How long the source's last packet stands for the source's KLV: a source at 1 Hz stays relayed through jitter. */
#define KLV_RELAY_HOLD_MS 3000
/* relayed_at while the source is held: later than any now, so the last packet stands. */
#define RELAY_HELD (G_MAXINT64 / 2)
/* How often a pacer whose pipeline has no clock yet looks again (it cannot reach PLAYING before). */
#define KLV_CLOCK_POLL_MS 5

struct hk_pacer {
  gint refs;                 /* the owner's and the timer's */
  GMutex lock;               /* everything below: the main thread ticks and relays, the command thread sets */
  gboolean stopped;
  GstElement *bin;
  char *appsrc, *relay_sink;
  gint64 lead_ns;
  gboolean ahead;
  GBytes *packet;            /* the core's packet, or NULL */
  gint stamp_at;
  gboolean positioned;       /* the packet carries a position: the source's KLV is not relayed */
  GBytes *relayed;
  gint64 relayed_at, relayed_pushed_at;
  gint64 last_pts;
  GSource *timer;
  gboolean clocked;          /* the period timer runs (not the clock poll) */
};

static gint64 now_ms(void) { return g_get_real_time() / 1000; }

/* ST 0601's checksum: a 16-bit running sum, even-index bytes in the high half (st0601.ts checksum()). */
static guint16 checksum(const guint8 *buf, gsize length) {
  guint16 bcc = 0;
  for (gsize i = 0; i < length; i++) bcc += buf[i] << (8 * ((i + 1) % 2));
  return bcc;
}

static gboolean push_at(hk_pacer *k, const guint8 *data, gsize size) {
  gint64 rt = ng_running_time(k->bin);
  if (rt < 0) return FALSE;
  /* PTS never goes backwards (a set and a tick in the same ms). */
  gint64 pts = MAX(rt + k->lead_ns, k->last_pts + 1);
  const char *code;
  g_autofree char *why = NULL;
  if (!ng_push_buffer(k->bin, k->appsrc, data, size, pts, -1, &code, &why)) return FALSE;
  k->last_pts = pts;
  return TRUE;
}

/* The core's packet stamped with the wall time its PTS stands for (lead from now). */
static gboolean push_stamped(hk_pacer *k, gint64 now) {
  if (!k->packet) return ng_running_time(k->bin) >= 0;
  gsize size;
  const guint8 *src = g_bytes_get_data(k->packet, &size);
  g_autofree guint8 *data = g_memdup2(src, size);
  if (k->stamp_at >= 0 && (gsize) k->stamp_at + 8 <= size && size >= 2) {
    guint64 us = (guint64) (now + k->lead_ns / 1000000) * 1000;
    for (int i = 0; i < 8; i++) data[k->stamp_at + i] = (guint8) (us >> (56 - 8 * i));
    guint16 sum = checksum(data, size - 2);
    data[size - 2] = sum >> 8;
    data[size - 1] = sum & 0xff;
  }
  return push_at(k, data, size);
}

/* One period's push; FALSE when the pipeline has no clock yet or the appsrc refused it. Locked. */
static gboolean tick_locked(hk_pacer *k) {
  gint64 now = now_ms();
  gboolean relaying = !k->positioned && k->relayed && now - k->relayed_at <= KLV_RELAY_HOLD_MS;
  /* While the source sends, its packets go out as they come; an `ahead` output gets the latest again only when none
   * came for a period (a source slower than 10 Hz), so a 10 Hz source stays 10 Hz. */
  if (relaying && (!k->ahead || now - k->relayed_pushed_at < KLV_PERIOD_MS)) return ng_running_time(k->bin) >= 0;
  if (!relaying) return push_stamped(k, now);
  gsize size;
  const guint8 *data = g_bytes_get_data(k->relayed, &size);
  if (!push_at(k, data, size)) return FALSE;
  k->relayed_pushed_at = now;
  return TRUE;
}

static void pacer_unref(gpointer data) {
  hk_pacer *k = data;
  if (!g_atomic_int_dec_and_test(&k->refs)) return;
  gst_object_unref(k->bin);
  g_free(k->appsrc);
  g_free(k->relay_sink);
  if (k->packet) g_bytes_unref(k->packet);
  if (k->relayed) g_bytes_unref(k->relayed);
  g_mutex_clear(&k->lock);
  g_free(k);
}

static gboolean on_timer(gpointer data);

/* Locked. */
static void arm(hk_pacer *k, guint ms) {
  if (k->timer) {
    g_source_destroy(k->timer);
    g_source_unref(k->timer);
  }
  k->timer = g_timeout_source_new(ms);
  g_atomic_int_inc(&k->refs);
  g_source_set_callback(k->timer, on_timer, k, pacer_unref);
  g_source_attach(k->timer, hc_context());
}

/* Every few ms until the pipeline has a clock, then every period. */
static gboolean on_timer(gpointer data) {
  hk_pacer *k = data;
  g_mutex_lock(&k->lock);
  gboolean keep = TRUE;
  if (!k->stopped && tick_locked(k) && !k->clocked) {
    k->clocked = TRUE;
    arm(k, KLV_PERIOD_MS);
    keep = FALSE;
  }
  g_mutex_unlock(&k->lock);
  return keep && !k->stopped ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void take_packet(hk_pacer *k, JsonObject *o) {
  const char *text = hc_string(o, "packet", NULL);
  gsize size = 0;
  guchar *data = text ? g_base64_decode(text, &size) : NULL;
  g_autoptr(GBytes) packet = data ? g_bytes_new_take(data, size) : NULL;
  JsonNode *positioned = json_object_get_member(o, "positioned");
  hk_pacer_set(k, packet, (gint) hc_int(o, "stampAt", -1), positioned && json_node_get_boolean(positioned));
}

hk_pacer *hk_pacer_new(hp_pipe *p, JsonObject *klv) {
  hk_pacer *k = g_new0(hk_pacer, 1);
  k->refs = 1;
  g_mutex_init(&k->lock);
  k->bin = gst_object_ref(hp_pipe_bin(p));
  k->appsrc = g_strdup(hc_string(klv, "appsrc", ""));
  k->relay_sink = g_strdup(hc_string(klv, "relay", NULL));
  k->ahead = g_strcmp0(hc_string(klv, "stamp", "ahead"), "due") != 0;
  k->lead_ns = k->ahead ? KLV_LEAD_NS : 0;
  k->last_pts = -1;
  take_packet(k, klv);
  g_mutex_lock(&k->lock);
  arm(k, KLV_CLOCK_POLL_MS);
  g_mutex_unlock(&k->lock);
  return k;
}

void hk_pacer_set(hk_pacer *k, GBytes *packet, gint stamp_at, gboolean positioned) {
  g_mutex_lock(&k->lock);
  if (k->packet) g_bytes_unref(k->packet);
  k->packet = packet ? g_bytes_ref(packet) : NULL;
  k->stamp_at = stamp_at;
  k->positioned = positioned;
  /* A new position goes out at once, not a period later. */
  if (k->timer && !k->stopped) tick_locked(k);
  g_mutex_unlock(&k->lock);
}

void hk_pacer_relay(hk_pacer *k, const guint8 *data, gsize size) {
  g_mutex_lock(&k->lock);
  if (k->relayed) g_bytes_unref(k->relayed);
  k->relayed = g_bytes_new(data, size);
  k->relayed_at = now_ms();
  k->relayed_pushed_at = G_MININT64 / 2;
  if (k->timer && !k->stopped && !k->positioned && push_at(k, data, size)) k->relayed_pushed_at = k->relayed_at;
  g_mutex_unlock(&k->lock);
}

/* The source is between two plays (a looped file's reader rebuilt): its last packet stands until hk_pacer_resume. */
void hk_pacer_hold(hk_pacer *k) {
  g_mutex_lock(&k->lock);
  if (k->relayed) k->relayed_at = RELAY_HELD;
  g_mutex_unlock(&k->lock);
}

/* The source plays again: its last packet stands KLV_RELAY_HOLD_MS more, as after any packet. */
void hk_pacer_resume(hk_pacer *k) {
  g_mutex_lock(&k->lock);
  if (k->relayed && k->relayed_at == RELAY_HELD) k->relayed_at = now_ms();
  g_mutex_unlock(&k->lock);
}

const char *hk_pacer_relay_sink(hk_pacer *k) { return k->relay_sink; }

void hk_pacer_free(hk_pacer *k) {
  g_mutex_lock(&k->lock);
  k->stopped = TRUE;
  if (k->timer) {
    g_source_destroy(k->timer);
    g_source_unref(k->timer);
    k->timer = NULL;
  }
  g_mutex_unlock(&k->lock);
  pacer_unref(k);
}
