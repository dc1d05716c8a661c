/**
 * Issue 16's soak: does anything grow while the appliance runs with churn? `node bench/soak.mjs --minutes N`
 * (default 2) runs four pipelines at 320×240, 15 fps, and the churn around them:
 * - `rtsp`: H.264 to a local RTSP mount; an RTSP client (gst-launch-1.0 rtspsrc ! fakesink) joins and leaves every
 *   ~5 s, and a width PATCH (320 ↔ 352, a rebuild in the same host) every ~50 s;
 * - `udp`: H.265 to UDP into this process; a bitrate PATCH and a geolocation PATCH every tick (5 s), framegrabs
 *   started and stopped every ~20 s;
 * - `rec`: H.264 to a `.ts` file, stopped and played every ~50 s;
 * - `ondemand`: an on-demand RTSP pipeline, a client every ~15 s;
 * - SSE subscribers (per pipeline and `/svc/events`) opened and closed, and a webhook receiver on 127.0.0.1 that
 *   every play and stop is delivered to.
 *
 * Every few seconds, at a random phase, it samples VmRSS, open file descriptors and threads of the API process and
 * of every engine host, and reports for each the growth per hour: the least-squares slope over the samples after
 * the warm-up (a fifth of the run, at most 10 minutes); for fds and threads also the slope of each minute's least
 * sample (at rest: an RTSP session open adds some 30 fds and 10 threads to the `rtsp` host while it lasts).
 * Functional figures beside it: 5xx answers, the longest silence of the UDP output, and the pipelines playing at
 * the end. Goal (issue 16): < 1 MB/hour for every process over 2 hours.
 *
 * Options: --minutes N, --sample-seconds S (5), --warmup-minutes W, --out FILE (the JSON result; default
 * bench/results/soak.json). Prints the result as a JSON line on stdout and a table on stderr.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { machine } from './lib/proc.mjs';
import { atEnd, main, note, report } from './lib/report.mjs';
import { freePort, ROOT, startService } from './lib/service.mjs';
import { KINDS, residentByKind } from './lib/smaps.mjs';
import { sseWatch } from './lib/sse.mjs';
import { round, sleep } from './lib/stats.mjs';
import { tsReceiver } from './lib/ts-receiver.mjs';

const BENCH = 'soak';
const QUESTION = 'growth per hour of RSS, fds and threads (API process, every engine host) under churn';
const GOAL_MB_PER_HOUR = 1;
const TICK_MS = 5000;

const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: '2' },
    'sample-seconds': { type: 'string', default: '5' },
    'warmup-minutes': { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench/results/soak.json') },
  },
});
const minutes = Number(opts.minutes);
const sampleMs = Number(opts['sample-seconds']) * 1000;
const warmupMs = (opts['warmup-minutes'] !== undefined ? Number(opts['warmup-minutes']) : Math.min(10, minutes / 5)) * 60000;
if (!(minutes > 0) || !(sampleMs > 0) || !(warmupMs >= 0) || warmupMs >= minutes * 60000) {
  process.stderr.write('usage: node bench/soak.mjs [--minutes N] [--sample-seconds S] [--warmup-minutes W < N] [--out FILE]\n');
  process.exit(2);
}

/** VmRSS (MB), open fds and threads of pid from /proc; null once it has gone. */
function sampleProc(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    // RSS in its two kinds: anonymous (heaps, stacks) and file-backed (the pages of code and libraries touched so
    // far, which the kernel may drop and read again).
    return { rss: field('VmRSS') / 1024, anon: field('RssAnon') / 1024, file: field('RssFile') / 1024,
      fds: readdirSync(`/proc/${pid}/fd`).length, threads: field('Threads') };
  } catch {
    return null;
  }
}

/** Least-squares slope of y over t (ms), per hour. */
function slopePerHour(points, key) {
  const n = points.length;
  if (n < 3) return NaN;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p[key], 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - mt) * (p[key] - my);
    den += (p.t - mt) ** 2;
  }
  return den ? (num / den) * 3600000 : NaN;
}

/** The least of each minute's samples: what a process holds at rest, between the sessions that come and go. */
function minuteMinima(points, key) {
  const byMinute = new Map();
  for (const p of points) {
    const m = Math.floor(p.t / 60000);
    const least = byMinute.get(m);
    if (!least || p[key] < least[key]) byMinute.set(m, p);
  }
  return [...byMinute.values()];
}

/** The API process's resident memory by kind of mapping (bench/lib/smaps.mjs), in MB; null once it has gone. */
function residentOf(pid) {
  try {
    return residentByKind(readFileSync(`/proc/${pid}/smaps`, 'utf8'));
  } catch {
    return null;
  }
}

/** The mean of key over each 10 minutes from the start, rounded to 0.1 MB. */
function tenMinuteMeans(points, key) {
  const buckets = [];
  for (const p of points) (buckets[Math.floor(p.t / 600000)] ??= []).push(p[key]);
  return [...buckets].map((b) => (b ? round(b.reduce((a, v) => a + v, 0) / b.length, 1) : null));
}

/** An RTSP client that joins, holds `holdMs` and leaves (SIGINT: gst-launch tears the session down). */
function rtspClient(url, holdMs, counts) {
  return new Promise((resolve) => {
    const child = spawn('gst-launch-1.0', ['-q', 'rtspsrc', `location=${url}`, 'latency=100', '!', 'fakesink'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGINT'), holdMs);
    const hard = setTimeout(() => child.kill('SIGKILL'), holdMs + 5000);
    child.on('exit', () => {
      clearTimeout(timer);
      clearTimeout(hard);
      counts.sessions++;
      if (/ERROR/.test(err)) counts.errors++;
      resolve();
    });
  });
}

await main(BENCH, QUESTION, async () => {
  const svc = await startService();
  const started = performance.now();
  const endAt = started + minutes * 60000;
  const calls = { total: 0, fivexx: 0, failed: 0, last5xx: null };
  const api = async (method, path, body) => {
    calls.total++;
    try {
      const r = await svc.api(method, path, body);
      if (r.status >= 500) {
        calls.fivexx++;
        calls.last5xx = `${method} ${path}: ${r.status} ${r.text.slice(0, 200)}`;
      }
      return r;
    } catch (err) {
      calls.failed++;
      calls.last5xx = `${method} ${path}: ${err.message}`;
      return { status: 0 };
    }
  };

  // Webhook receiver: every delivery counted.
  const hooks = { delivered: 0 };
  const hookServer = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks.delivered++;
      res.end('ok');
    });
  });
  await new Promise((r) => hookServer.listen(0, '127.0.0.1', r));
  atEnd(() => new Promise((r) => hookServer.close(r)));
  const hookPort = hookServer.address().port;
  await api('POST', '/svc/webhooks', { url: `http://127.0.0.1:${hookPort}/hook`, events: ['pipeline.started', 'pipeline.stopped'] });

  const rx = await tsReceiver();
  atEnd(() => rx.close());
  const rtspUrl = `rtsp://127.0.0.1:${await freePort()}/live`;
  const odUrl = `rtsp://127.0.0.1:${await freePort()}/od`;
  const enc = (codec) => ({ codec, bitrate: 300, width: 320, height: 240, fps: 15 });
  const bodies = [
    { id: 'rtsp', mode: 'simple', source: { uri: 'test://ball' }, encoding: enc('h264'), output: { uri: rtspUrl } },
    { id: 'udp', mode: 'simple', source: { uri: 'test://ball' }, encoding: enc('h265'), output: { uri: `udp://127.0.0.1:${rx.port}` } },
    { id: 'rec', mode: 'simple', source: { uri: 'test://ball' }, encoding: enc('h264'), output: { uri: join(svc.dataDir, 'rec.ts') } },
    { id: 'ondemand', mode: 'simple', source: { uri: 'test://ball' }, encoding: enc('h264'), output: { uri: odUrl }, on_demand: true },
  ];
  for (const b of bodies) {
    const r = await api('POST', '/svc/pipeline', b);
    if (r.status !== 201) throw new Error(`POST ${b.id} answered ${r.status}: ${r.text}`);
  }
  note(`soak: ${minutes} min, samples every ${sampleMs / 1000} s, warm-up ${round(warmupMs / 60000, 1)} min; service pid ${svc.pid}`);

  // Sampling: the API process and every engine host, keyed by pipeline and pid (a host restarted is a new series).
  const series = new Map();
  const sampler = async () => {
    while (performance.now() < endAt) {
      const t = performance.now() - started;
      const procs = [{ key: 'api', pid: svc.pid }];
      for (const id of bodies.map((b) => b.id)) {
        const pid = svc.hostPid(id);
        if (pid) procs.push({ key: `host:${id}`, pid });
      }
      for (const { key, pid } of procs) {
        const s = sampleProc(pid);
        if (!s) continue;
        const k = `${key}#${pid}`;
        if (!series.has(k)) series.set(k, { process: key, pid, points: [] });
        series.get(k).points.push({ t, ...s });
      }
      // A random phase: at a fixed period the samples would keep step with the 5 s client loop, drift slowly
      // across it and read each session's fds and threads as a trend (docs/benchmarks.md, "Probes of 2026-11-25,
      // after the 50-minute soak").
      await sleep(sampleMs * (0.5 + Math.random()));
    }
  };

  // Churn, one loop per kind, all ending at endAt.
  const rtspClients = { sessions: 0, errors: 0 };
  const odClients = { sessions: 0, errors: 0 };
  const churn = { width: 0, bitrate: 0, geolocation: 0, stopPlay: 0, framegrab: 0, sse: 0 };
  const every = async (ms, fn) => {
    let next = performance.now() + ms;
    while (next < endAt) {
      await sleep(Math.max(0, next - performance.now()));
      if (performance.now() >= endAt) break;
      await fn();
      next += ms;
    }
  };
  let width = 320;
  let bitrate = 300;
  let grabbing = false;
  const sse = [];
  const apiParts = [];
  const loops = [
    every(TICK_MS, () => rtspClient(rtspUrl, 2500, rtspClients)),
    every(50000, async () => {
      width = width === 320 ? 352 : 320;
      churn.width++;
      await api('PATCH', '/svc/pipeline/rtsp', { encoding: { width } });
    }),
    every(TICK_MS, async () => {
      bitrate = bitrate === 300 ? 400 : 300;
      churn.bitrate++;
      churn.geolocation++;
      await api('PATCH', '/svc/pipeline/udp', { encoding: { bitrate } });
      await api('PATCH', '/svc/pipeline/udp', { geolocation: { latitude: 48 + Math.random(), longitude: 11 + Math.random() } });
    }),
    every(20000, async () => {
      grabbing = !grabbing;
      churn.framegrab++;
      await api('PUT', `/svc/pipeline/udp/framegrab/${grabbing ? 'start' : 'stop'}`, grabbing ? { interval_seconds: 1 } : undefined);
    }),
    every(50000, async () => {
      churn.stopPlay++;
      await api('PUT', '/svc/pipeline/rec/stop');
      await api('PUT', '/svc/pipeline/rec/play');
    }),
    every(15000, () => rtspClient(odUrl, 4000, odClients)),
    every(7000, async () => {
      // Up to three streams open; the oldest goes when a fourth comes.
      const paths = ['/svc/events', '/svc/events?stats=true', ...bodies.map((b) => `/svc/pipeline/${b.id}/status/events`)];
      const path = paths[churn.sse % paths.length];
      try {
        sse.push(await sseWatch(svc, path));
        churn.sse++;
      } catch {
        calls.failed++;
      }
      if (sse.length > 3) sse.shift().close();
    }),
    sampler(),
    // What the API's RSS is made of, once a minute: V8's heap, Buffers, glibc's C heap (docs/metrics.md).
    every(60000, async () => {
      const r = await api('GET', '/svc/metrics');
      const value = (re) => Number(re.exec(r.text ?? '')?.[1] ?? NaN) / 1048576;
      const point = {
        t: performance.now() - started,
        ...residentOf(svc.pid),
        heap: value(/^nodejs_heap_size_used_bytes (\S+)$/m),
        heapTotal: value(/^nodejs_heap_size_total_bytes (\S+)$/m),
        external: value(/^nodejs_external_memory_bytes (\S+)$/m),
        malloc: value(/^encoderd_api_malloc_bytes\{kind="in_use"\} (\S+)$/m),
        mallocHeld: value(/^encoderd_api_malloc_bytes\{kind="held"\} (\S+)$/m),
      };
      if (Object.values(point).every(Number.isFinite)) apiParts.push(point);
    }),
  ];
  // Progress once a minute, so a long run can be followed.
  const progress = setInterval(() => note(`  ${round((performance.now() - started) / 60000, 1)} min: ${calls.total} calls, ${calls.fivexx} 5xx, `
    + `${rtspClients.sessions + odClients.sessions} RTSP sessions, ${hooks.delivered} webhooks`), 60000);
  await Promise.all(loops);
  const churnEnded = performance.now();
  clearInterval(progress);
  for (const s of sse.splice(0)) s.close();

  // The end: the recording may be between stop and play, and a rebuild may be under way; give them a moment.
  // The on-demand pipeline plays only while a client watches: the always-running three are the ones counted.
  const alwaysOn = ['rtsp', 'udp', 'rec'];
  const states = {};
  const deadline = performance.now() + 15000;
  for (;;) {
    for (const b of bodies) states[b.id] = (await api('GET', `/svc/pipeline/${b.id}`)).body?.state ?? 'gone';
    const allPlaying = alwaysOn.every((id) => states[id] === 'playing');
    if (allPlaying || performance.now() > deadline) break;
    await sleep(500);
  }

  // Longest silence of the UDP output: the largest gap between frames from its first frame to the end of the churn.
  const frames = rx.frames.filter((f) => f.at <= churnEnded);
  let silence = frames.length ? churnEnded - frames.at(-1).at : Infinity;
  for (let i = 1; i < frames.length; i++) silence = Math.max(silence, frames[i].at - frames[i - 1].at);

  const processes = [...series.values()].map((s) => {
    const after = s.points.filter((p) => p.t >= warmupMs);
    const first = after[0] ?? s.points[0];
    const last = s.points.at(-1);
    return {
      process: s.process,
      pid: s.pid,
      samples: s.points.length,
      samples_after_warmup: after.length,
      rss_mb_after_warmup: round(first.rss, 1),
      rss_mb_end: round(last.rss, 1),
      rss_mb_per_hour: round(slopePerHour(after, 'rss'), 2),
      anon_mb_per_hour: round(slopePerHour(after, 'anon'), 2),
      file_mb_per_hour: round(slopePerHour(after, 'file'), 2),
      // The shape of the growth: mean RSS over each 10 minutes from the start.
      rss_mb_by_10min: tenMinuteMeans(s.points, 'rss'),
      fds_end: last.fds,
      fds_per_hour: round(slopePerHour(after, 'fds'), 1),
      fds_at_rest_per_hour: round(slopePerHour(minuteMinima(after, 'fds'), 'fds'), 1),
      threads_end: last.threads,
      threads_per_hour: round(slopePerHour(after, 'threads'), 1),
      threads_at_rest_per_hour: round(slopePerHour(minuteMinima(after, 'threads'), 'threads'), 1),
    };
  });
  const partsAfter = apiParts.filter((p) => p.t >= warmupMs);
  const api_parts = partsAfter.length >= 3 ? Object.fromEntries(['heap', 'heapTotal', 'external', 'malloc', 'mallocHeld', ...KINDS].map((k) => [k, {
    mb_after_warmup: round(partsAfter[0][k], 1), mb_end: round(partsAfter.at(-1)[k], 1), mb_per_hour: round(slopePerHour(partsAfter, k), 2),
  }])) : null;
  // A series too short for a slope (a host restarted near the end) is listed but not judged.
  const judged = processes.filter((p) => Number.isFinite(p.rss_mb_per_hour));
  const worst = judged.reduce((w, p) => (w && w.rss_mb_per_hour >= p.rss_mb_per_hour ? w : p), null);
  const playingAtEnd = alwaysOn.filter((id) => states[id] === 'playing').length;
  const result = {
    bench: BENCH,
    question: QUESTION,
    minutes,
    warmup_minutes: round(warmupMs / 60000, 1),
    sample_seconds: sampleMs / 1000,
    processes,
    // The API's RSS in parts (V8 heap used, external/Buffers, glibc in use and held), from its /svc/metrics each minute.
    api_parts,
    requests: calls.total,
    http_5xx: calls.fivexx,
    requests_failed: calls.failed,
    last_failure: calls.last5xx,
    longest_udp_silence_ms: round(silence, 0),
    udp_frames: frames.length,
    states_at_end: states,
    pipelines_playing_at_end: playingAtEnd,
    rtsp_sessions: rtspClients,
    on_demand_sessions: odClients,
    webhooks_delivered: hooks.delivered,
    churn,
    figure: worst ? `worst ${worst.process} ${worst.rss_mb_per_hour} MB/h RSS over ${minutes} min; ${calls.fivexx} 5xx; `
      + `UDP silence ≤ ${round(silence, 0)} ms; ${playingAtEnd}/3 always-running playing` : 'no samples',
    goal: `< ${GOAL_MB_PER_HOUR} MB/hour per process over 2 hours`,
    pass: minutes >= 120 ? judged.every((p) => p.rss_mb_per_hour < GOAL_MB_PER_HOUR) && calls.fivexx === 0 : null,
    reason: minutes >= 120 ? undefined : `a ${minutes}-minute run: the goal is judged over 2 hours`,
    load_average: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
    machine: machine(),
  };
  mkdirSync(join(opts.out, '..'), { recursive: true });
  writeFileSync(opts.out, `${JSON.stringify(result, null, 2)}\n`);
  report(result);

  const head = ['process', 'pid', 'n', 'RSS MB', '→ end', 'MB/h', 'fds', 'fds/h', 'at rest', 'thr', 'thr/h', 'at rest'];
  const rows = processes.map((p) => [p.process, p.pid, p.samples_after_warmup, p.rss_mb_after_warmup, p.rss_mb_end, p.rss_mb_per_hour,
    p.fds_end, p.fds_per_hour, p.fds_at_rest_per_hour, p.threads_end, p.threads_per_hour, p.threads_at_rest_per_hour].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  note(['', line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line), '',
    `requests ${calls.total}, 5xx ${calls.fivexx}, failed ${calls.failed}; longest UDP silence ${round(silence, 0)} ms; `
    + `always-running pipelines playing at end ${playingAtEnd}/3 ${JSON.stringify(states)}`,
    `RTSP sessions ${rtspClients.sessions} (${rtspClients.errors} with errors), on demand ${odClients.sessions} (${odClients.errors}); `
    + `webhooks ${hooks.delivered}; churn ${JSON.stringify(churn)}`,
    `API parts (MB after warm-up → end, MB/h): ${api_parts ? Object.entries(api_parts).map(([k, v]) => `${k} ${v.mb_after_warmup} → ${v.mb_end} (${v.mb_per_hour})`).join(', ') : 'none'}`,
    `written to ${opts.out}`].join('\n'));
});
