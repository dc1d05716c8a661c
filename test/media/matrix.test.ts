// The receiver matrix (issue 14): every combination of video (H.264, H.265, AV1 encoded; H.264, H.265, AV1 passed
// through), source kind (test pattern, RTSP, UDP MPEG-TS, file), output (local RTSP read over TCP and UDP, UDP
// unicast, multicast on lo, TCP listen and connect, .ts, .mkv, .mp4) and extras (KLV from a geolocation, Codec2
// audio), sent to one real service. Its answer decides what is allowed: whatever it accepts must decode in ffmpeg
// with no error line after the first keyframe (test/media/matrix/judge.ts), whatever it refuses must be a 400
// VALIDATION_ERROR that says why; never a 5xx. The cases run a dozen at a time in one service, on distinct ports,
// from shared sources; the outcome is written to test/media/matrix/results.json and as tables into
// docs/dataplane.md ("Receiver matrix").
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { FRAME, GOP, allCases, caseLabel, codecOf, hasAudio, hasKlv, isPassthrough, klvExpected, type Case, type Codec } from './matrix/cases';
import { GST_ENV, av1FrontEnd, ffmpegJudge, ffmpegListening, pipedJudge, tcpCatcher, type Verdict } from './matrix/judge';
import { portTaken, starved, writeRecord, type Outcome } from './matrix/report';

/** Cases at once: each is a pipeline (an engine host) and one or two receivers. */
const CONCURRENCY = Number(process.env.MATRIX_CONCURRENCY ?? 16);
/** Live receivers decode a little more than a GOP: the first keyframe and the next. */
const LIVE_FRAMES = GOP + 5;
/** Recordings are stopped after this many frames (two GOPs and a bit), and must decode whole. */
const RECORD_FRAMES = GOP * 2 + 5;
const RECEIVER_TIMEOUT_MS = 20000;
/** Frames of each source file (30 s). */
const FILE_FRAMES = 300;
/** The AV1 bundle front end stamps by RTP time: a larger step between decoded frames is frames missing. */
const FRAME_MS = 1000 / FRAME.fps;

let svc: RunningService;
let dir: string;
/** For working on the matrix only: a regular expression on case labels. A filtered run writes no record. */
const FILTER = process.env.MATRIX_FILTER ? new RegExp(process.env.MATRIX_FILTER) : undefined;
const cases = allCases().filter((c) => !FILTER || FILTER.test(caseLabel(c)));
const outcomes = new Map<string, Outcome>();
const senders: ChildProcess[] = [];
/** The shared sources: URI per source kind and codec. */
const sourceUri: Record<string, string> = {};
let wallSeconds = 0;

function encodingOf(codec: Codec) {
  return { codec, bitrate: 300, ...FRAME, quality: 1 };
}

/** gst-launch encoders for the sources the service does not make itself (UDP senders, files). */
const GST_ENCODER: Record<Codec, string[]> = {
  h264: ['x264enc', 'tune=zerolatency', 'speed-preset=ultrafast', 'bitrate=300', `key-int-max=${GOP}`, '!', 'h264parse', 'config-interval=-1'],
  h265: ['x265enc', 'tune=zerolatency', 'speed-preset=ultrafast', 'bitrate=300', `key-int-max=${GOP}`, '!', 'h265parse', 'config-interval=-1'],
  av1: ['av1enc', 'usage-profile=realtime', 'end-usage=cbr', 'cpu-used=10', 'min-quantizer=0', 'max-quantizer=63', `keyframe-max-dist=${GOP}`, 'target-bitrate=300', '!', 'av1parse'],
};
const RAW = ['videotestsrc', 'pattern=ball', '!', `video/x-raw,format=I420,width=${FRAME.width},height=${FRAME.height},framerate=${FRAME.fps}/1`];

/** Source codec of a case: the passed-through one, or H.264 for an encoded case that reads an encoded source. */
function sourceCodec(c: Case): Codec {
  return isPassthrough(c.video) ? codecOf(c.video) : 'h264';
}

/**
 * One UDP port per case that reads a UDP source (two sockets on one unicast port do not both get every datagram),
 * taken when the case starts: a Node socket takes each codec's sender's datagrams and sends every one on to the ports
 * of the cases running then.
 */
const udpSourcePort = new Map<string, number>();
const udpFanout: Record<string, { ports: Set<number>; close: () => void }> = {};

async function fanout(codec: Codec): Promise<number> {
  const sock = createSocket('udp4');
  const ports = new Set<number>();
  sock.on('message', (data) => { for (const p of ports) sock.send(data, p, '127.0.0.1'); });
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  udpFanout[codec] = { ports, close: () => sock.close() };
  return sock.address().port;
}

function bodyOf(c: Case, outputUri: string, extra: Record<string, unknown>) {
  const source = c.source === 'test' ? { uri: 'test://ball' }
    : c.source === 'udp' ? { uri: `udp://127.0.0.1:${udpSourcePort.get(c.id)}` }
      : c.source === 'rtsp' ? { uri: sourceUri[`rtsp-${sourceCodec(c)}`], latency_ms: 100 }
        : { uri: sourceUri[`file-${sourceCodec(c)}`] };
  return {
    id: c.id,
    mode: 'simple',
    source,
    ...(isPassthrough(c.video) ? {} : { encoding: encodingOf(c.video as Codec) }),
    output: { uri: outputUri, ...extra },
    ...(hasKlv(c.extra) ? { geolocation: { latitude: 48.8584, longitude: 2.2945, altitude: 330, heading: 90 } } : {}),
    ...(hasAudio(c.extra) ? { audio: { source: 'test', codec2_mode: 2400 } } : {}),
  };
}

/** Ports handed out once each: a UDP source's port is reserved from the start, though nothing binds it until its case runs. */
const taken = new Set<number>();
async function nextPort(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (!taken.has(p)) {
      taken.add(p);
      return p;
    }
  }
}

/** RFC 4571 framed RTP (rtpstreamdepay's input) with the video's caps. */
function streamCaps(rtpCaps: string): string {
  return rtpCaps.replace(/^application\/x-rtp,/, 'application/x-rtp-stream,');
}

function group(n: number): string {
  return `239.255.${100 + Math.floor(n / 250)}.${(n % 250) + 1}`;
}

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

/**
 * Output options of ffmpeg for a case's receivers. A passed-through live MPEG-TS source keeps the stamps tsdemux
 * gives it, which follow the datagrams' arrival: on a loaded machine two frames can fall within one frame period
 * (dtsguard keeps them 1 ms apart, docs/dataplane.md, "Receiver matrix", item 5). ffmpeg's null output counts time in
 * frame periods and calls that an error although every DTS increases and every frame decodes; read at the stream's
 * own time base (as test/media/passthrough-burst.test.ts does), a repeated or backward DTS still fails the case.
 */
function outputOptions(c: Case): string[] {
  return isPassthrough(c.video) && c.source === 'udp' ? ['-enc_time_base', '-1'] : [];
}

/** A receiver's verdict in the outcome's words. */
function receiverOf(name: string, v: Verdict) {
  return { name, ok: v.ok, decoded: v.decoded, keyframes: v.keyframes, streams: v.streams, errors: v.errors.slice(0, 8), reason: v.reason, ...(FILTER ? { log: v.log } : {}) };
}

async function runCase(c: Case, n: number): Promise<Outcome> {
  const t0 = Date.now();
  const codec = codecOf(c.video);
  const rtp = codec === 'av1'; // AV1 has no MPEG-TS mapping: UDP and TCP carry it as an RTP bundle.
  const stem = join(dir, c.id);
  const port = await nextPort();
  if (c.source === 'udp') {
    const p = await nextPort();
    udpSourcePort.set(c.id, p);
    udpFanout[sourceCodec(c)].ports.add(p);
  }
  let outputUri: string;
  let extra: Record<string, unknown> = {};
  switch (c.output) {
    case 'rtsp': outputUri = `rtsp://127.0.0.1:${port}/${c.id}`; break;
    case 'udp': outputUri = `udp://127.0.0.1:${port}`; break;
    case 'mcast': outputUri = `udp://${group(n)}:${port}`; extra = { network_interface: 'lo' }; break;
    case 'tcp-listen': outputUri = `tcp://0.0.0.0:${port}`; break;
    case 'tcp-connect': outputUri = `tcp://127.0.0.1:${port}`; break;
    default: outputUri = `${stem}.${c.output}`;
  }
  const body = bodyOf(c, outputUri, extra);

  // TCP connect: the receiver listens before the pipeline starts (it connects as it starts). For AV1's RTP bundle
  // the bytes are kept until the SDP tells the receiver what the bundle holds.
  let listener: { done: Promise<Verdict>; stop: () => void } | undefined;
  let catcher: Awaited<ReturnType<typeof tcpCatcher>> | undefined;
  if (c.output === 'tcp-connect') {
    if (rtp) catcher = await tcpCatcher(port);
    else {
      const l = ffmpegListening(port, LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, outputOptions(c));
      listener = l;
      await l.ready;
    }
  }

  const r = await svc.api('POST', '/svc/pipeline', body);
  if (r.status !== 201) {
    listener?.stop();
    catcher?.close();
    await listener?.done;
    if (r.status >= 200 && r.status < 300) await remove(c.id);
    else await svc.api('DELETE', `/svc/pipeline/${c.id}`); // a failed start keeps the pipeline, ready
    const refused = r.status === 400 && r.body?.code === 'VALIDATION_ERROR' && typeof r.body?.message === 'string' && Array.isArray(r.body?.details?.errors) && r.body.details.errors.length > 0;
    return {
      case: c, result: refused ? 'refused' : 'fail', http: r.status,
      message: refused ? (r.body.details.errors as string[]).join('; ') : `${r.body?.code ?? ''} ${r.body?.message ?? r.text}`.trim(),
      errors: r.body?.details?.errors, ms: Date.now() - t0,
    };
  }
  const outcome: Outcome = { case: c, result: 'pass', http: 201, receivers: [], ms: 0 };
  try {
    if (r.body.state !== 'playing') throw new Error(`created but ${r.body.state}: ${r.body.last_error}`);
    const sdp = rtp && !['ts', 'mkv', 'mp4'].includes(c.output) ? (await svc.api('GET', `/svc/pipeline/${c.id}/sdp`)).text : '';
    const verdicts: Array<[string, Verdict]> = [];
    if (['ts', 'mkv', 'mp4'].includes(c.output)) {
      // A recording: stopped (finalised) after two GOPs and a bit, then read whole.
      await waitFor(async () => {
        const v = (await svc.api('GET', `/svc/pipeline/${c.id}`)).body;
        if (v.health === 'failing') throw new Error(`failing: ${v.health_reason ?? v.last_error}`);
        return (v.stats?.output?.frames ?? 0) >= RECORD_FRAMES;
      }, 20000, 200);
      await remove(c.id);
      verdicts.push(['file', await ffmpegJudge(['-i', body.output.uri as string, ...outputOptions(c)], RECORD_FRAMES - GOP, 2, RECEIVER_TIMEOUT_MS)]);
    } else if (c.output === 'rtsp') {
      const url = `rtsp://127.0.0.1:${port}/${c.id}`;
      const judge = (t: string): Promise<Verdict> => (rtp
        // rtspsrc stamps by RTP time alone (buffer-mode=none, judge.ts) and, as the RTSP source plugin does, takes no
        // lip-sync offset from the first RTCP sender report (max-ts-offset=1: rtpbin ignores any offset over 1 ns).
        // With the KLV track beside the video, that offset was applied to the video as a step back under load:
        // "non monotonically increasing dts … 1077 >= 1076" over UDP, once in a full suite.
        ? pipedJudge(av1FrontEnd('rtsp', () => `rtspsrc location=${url} protocols=${t} latency=100 buffer-mode=none max-ts-offset=1`, `${stem}-${t}`, sdp), LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, `${stem}-${t}`)
        // Every track over both transports. Until 2026-11-26 ffmpeg read the video alone over UDP: its RTSP demuxer
        // re-bases each track at the first RTCP sender report by the offset between the tracks' first packets, and
        // a backward step showed as "non monotonically increasing dts" (docs/dataplane.md, "Receiver matrix", open
        // item 1); not seen since the tracks of a media start together (item 4's fix).
        : ffmpegJudge(['-rtsp_transport', t, '-i', url, ...outputOptions(c)], LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, LIVE_FRAMES));
      // The two rtspsrc receivers of an AV1 case join at once (a second one joining later waits for a passed-through
      // source's next keyframe); ffmpeg's one after the other: a client that sets up only some of a shared media's
      // tracks was refused PLAY (503) while another client played all of them (open items, as above).
      const both: Array<[string, Verdict]> = rtp
        ? await Promise.all(['tcp', 'udp'].map(async (t) => [`rtsp/${t}`, await judge(t)] as [string, Verdict]))
        : [['rtsp/tcp', await judge('tcp')], ['rtsp/udp', await judge('udp')]];
      verdicts.push(...both);
    } else if (c.output === 'tcp-connect') {
      verdicts.push(['tcp-connect', rtp
        ? await pipedJudge(av1FrontEnd('bundle', (k) => `fdsrc fd=0 ! ${streamCaps(k)} ! rtpstreamdepay`, stem, sdp), LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, stem, catcher!.stream, 2400, FRAME_MS)
        : await listener!.done]);
    } else if (c.output === 'tcp-listen') {
      verdicts.push(['tcp-listen', rtp
        ? await pipedJudge(av1FrontEnd('bundle', (k) => `tcpclientsrc host=127.0.0.1 port=${port} ! ${streamCaps(k)} ! rtpstreamdepay`, stem, sdp), LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, stem, undefined, 2400, FRAME_MS)
        : await ffmpegJudge(['-i', `tcp://127.0.0.1:${port}`, ...outputOptions(c)], LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, LIVE_FRAMES)]);
    } else {
      const mc = c.output === 'mcast';
      const host = mc ? group(n) : '127.0.0.1';
      verdicts.push([c.output, rtp
        ? await pipedJudge(av1FrontEnd('bundle', (k) => `udpsrc address=${host} port=${port}${mc ? ' multicast-iface=lo auto-multicast=true' : ''} caps=${k}`, stem, sdp), LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, stem, undefined, 2400, FRAME_MS)
        : await ffmpegJudge(['-i', `udp://${host}:${port}${mc ? '?localaddr=127.0.0.1' : ''}`, ...outputOptions(c)], LIVE_FRAMES, 2, RECEIVER_TIMEOUT_MS, LIVE_FRAMES)]);
    }
    outcome.receivers = verdicts.map(([name, v]) => receiverOf(name, v));
    const problems = verdicts.filter(([, v]) => !v.ok).map(([name, v]) => `${name}: ${v.reason}`);
    // KLV where the output can carry it: a KLV/data stream in ffmpeg's input dump, or KLV packets depayloaded.
    if (klvExpected(c)) {
      outcome.klv = verdicts
        .every(([, v]) => v.klvBytes !== undefined ? v.klvBytes > 0 : v.streams.some((s) => /^Data: /.test(s)));
      if (!outcome.klv) problems.push('no KLV stream at the receiver');
    }
    // Audio: the Codec2 track in ffmpeg's input dump, or depayloaded and decoded by ffmpeg (≥ 1 s, no error).
    if (hasAudio(c.extra)) {
      outcome.audio = verdicts.every(([, v]) => v.audio ? v.audio.decoded && v.audio.seconds >= 1 && !v.audio.errors.length : v.streams.some((s) => /^Audio: /.test(s)));
      if (!outcome.audio) problems.push(`no Codec2 audio at the receiver${verdicts.map(([n, v]) => (v.audio ? ` (${n}: ${v.audio.seconds} s, ${v.audio.errors.length} errors)` : '')).join('')}`);
    }
    if (problems.length) {
      outcome.result = 'fail';
      outcome.message = problems.join('; ');
    }
  } catch (err) {
    outcome.result = 'fail';
    outcome.message = (err as Error).message;
  } finally {
    listener?.stop();
    catcher?.close();
    await remove(c.id);
  }
  outcome.ms = Date.now() - t0;
  return outcome;
}

/** Runs `list` on a pool of `workers`, heavy encoders first. */
async function runPool(list: Case[], workers: number): Promise<void> {
  const order = [...list].sort((a, b) => weight(b) - weight(a));
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    for (;;) {
      const i = next++;
      if (i >= order.length) return;
      const c = order[i];
      try {
        outcomes.set(c.id, await runCase(c, cases.indexOf(c)));
        const p = udpSourcePort.get(c.id);
        if (p !== undefined) udpFanout[sourceCodec(c)]?.ports.delete(p);
      } catch (err) {
        outcomes.set(c.id, { case: c, result: 'fail', http: 0, message: `the test itself: ${(err as Error).stack}`, ms: 0 });
      }
    }
  }));
}

/** Every case on CONCURRENCY workers, then the starved ones again, four at a time. */
async function runAll(): Promise<void> {
  await runPool(cases, CONCURRENCY);
  const again = cases.filter((c) => starved(outcomes.get(c.id)!) || portTaken(outcomes.get(c.id)!));
  const first = new Map(again.map((c) => [c.id, outcomes.get(c.id)!.message ?? '']));
  await runPool(again, 4);
  for (const c of again) outcomes.get(c.id)!.firstRun = first.get(c.id);
}

function weight(c: Case): number {
  return (isPassthrough(c.video) ? 0 : c.video === 'h265' ? 3 : c.video === 'av1' ? 2 : 1) + (c.output === 'rtsp' ? 1 : 0);
}

async function makeFile(codec: Codec, path: string): Promise<void> {
  const mux = path.endsWith('.mp4') ? 'mp4mux' : 'matroskamux';
  const r = await run('gst-launch-1.0', ['-q', ...RAW.slice(0, 2), `num-buffers=${FILE_FRAMES}`, ...RAW.slice(2), '!', ...GST_ENCODER[codec], '!', mux, '!', 'filesink', `location=${path}`], { env: GST_ENV, timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`could not make ${path}: ${r.stderr}`);
}

beforeAll(async () => {
  const t0 = Date.now();
  dir = mkdtempSync(join(tmpdir(), 'encoderd-matrix-'));
  svc = await startService({ args: ['--start-timeout-ms', '15000', '--log-level', 'warn'] });
  // Shared sources. RTSP: a pipeline of this service per codec, with a geolocation (KLV, where RTSP carries it).
  await Promise.all((['h264', 'h265', 'av1'] as Codec[]).map(async (codec) => {
    const port = await nextPort();
    const r = await svc.api('POST', '/svc/pipeline', {
      id: `src-${codec}`, mode: 'simple', source: { uri: 'test://ball' }, encoding: encodingOf(codec),
      output: { uri: `rtsp://127.0.0.1:${port}/src` }, geolocation: { latitude: 51.5, longitude: -0.12 },
    });
    expect(r.status, r.text).toBe(201);
    sourceUri[`rtsp-${codec}`] = `rtsp://127.0.0.1:${port}/src`;
  }));
  // Files: H.264 in MP4, H.265 and AV1 in Matroska, 30 s. A passed-through file plays once, and an RTSP case's
  // two ffmpeg receivers join one after the other, each waiting up to a GOP for its keyframe: with 12 s, the UDP one
  // of a loaded run joined near the end and got 17 of its 25 frames (three pt · file → rtsp cases at once).
  await Promise.all([['h264', 'mp4'], ['h265', 'mkv'], ['av1', 'mkv']].map(async ([codec, ext]) => {
    const path = join(dir, `source-${codec}.${ext}`);
    await makeFile(codec as Codec, path);
    sourceUri[`file-${codec}`] = `file://${path}`;
  }));
  // UDP MPEG-TS: one live gst-launch sender per codec, fanned out to the cases' ports.
  for (const codec of ['h264', 'h265'] as Codec[]) {
    const relay = await fanout(codec);
    const sender = spawn('gst-launch-1.0', ['-q', 'videotestsrc', 'is-live=true', ...RAW.slice(1), '!', ...GST_ENCODER[codec], '!',
      'mpegtsmux', 'alignment=7', '!', 'udpsink', 'host=127.0.0.1', `port=${relay}`], { stdio: 'ignore', env: { ...process.env, ...GST_ENV } });
    senders.push(sender);
  }
  await runAll();
  wallSeconds = Math.round((Date.now() - t0) / 1000);
  const commit = (await run('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'])).stdout.trim();
  const ordered = cases.map((c) => outcomes.get(c.id)!);
  if (FILTER) writeFileSync(join(tmpdir(), 'encoderd-matrix-filtered.json'), JSON.stringify(ordered, null, 1));
  else writeRecord(ordered, { date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), commit, wallSeconds });
  const count = (k: Outcome['result']) => ordered.filter((o) => o.result === k).length;
  console.log(`receiver matrix: ${ordered.length} cases: ${count('pass')} decoded cleanly, ${count('refused')} refused (400), ${count('fail')} failed; ${wallSeconds} s`);
}, 600_000);

afterAll(async () => {
  for (const s of senders) s.kill('SIGKILL');
  for (const f of Object.values(udpFanout)) f.close();
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('receiver matrix', () => {
  for (const c of cases) {
    it(caseLabel(c), () => {
      const o = outcomes.get(c.id);
      expect(o, 'not run').toBeDefined();
      const detail = JSON.stringify({ http: o!.http, message: o!.message, receivers: o!.receivers }, null, 1);
      if (o!.http !== 201) {
        // Refused: a 400 VALIDATION_ERROR that says why; never a 5xx or any other code.
        expect(o!.http, detail).toBe(400);
        expect(o!.result, detail).toBe('refused');
        expect(o!.message, detail).toBeTruthy();
      } else {
        expect(o!.result, detail).toBe('pass');
      }
    });
  }
});
