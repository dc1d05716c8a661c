/**
 * ffmpeg as the judge of the matrix. Every receiver is `ffmpeg -i <input> -frames:v N -vf showinfo -f null -` with
 * each log line tagged by its level; a combination passes when ffmpeg decodes N frames and prints no error line
 * (nor "corrupt decoded frame" / "concealing … errors") from the first keyframe on. What comes before the first
 * keyframe is a receiver joining a live stream, not damage.
 *
 * ffmpeg 5.1 (Debian 12) has no AV1 RTP depacketizer and no RFC 4571 (RTP over TCP) reader, so for AV1 over RTP
 * a gst-launch-1.0 front end (the service's own standalone rtpav1depay on GST_PLUGIN_PATH, as any GStreamer
 * receiver would have it) only depayloads, and hands the AV1 temporal units to ffmpeg in Matroska through a pipe:
 * the decoding, and so the verdict, is still ffmpeg's. Its other payload types (Codec2 97, KLV after) are
 * written to files: the Codec2 frames are decoded by ffmpeg too, the KLV packets are counted.
 *
 * The input dump ffmpeg prints on opening (what ffprobe prints) names the streams the receiver sees: a KLV or data
 * stream, an audio stream.
 */
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run } from '../../helpers/service';

export const GST_ENV = { GST_PLUGIN_PATH: join(ROOT, 'native/build/gst-plugins'), GST_DEBUG: '0' };

export interface Verdict {
  ok: boolean;
  /** Frames ffmpeg decoded, and how many were keyframes. */
  decoded: number;
  keyframes: number;
  /** Error lines after the first keyframe. */
  errors: string[];
  /** Streams in ffmpeg's input dump ("Video: h264 …", "Data: klv …"). */
  streams: string[];
  /** Why it failed, in a line (too few frames, errors, ffmpeg did not start). */
  reason?: string;
  log: string;
  /** Set when a gst-launch front end depayloaded: bytes of KLV and a verdict on the Codec2 audio it wrote. */
  klvBytes?: number;
  audio?: { decoded: boolean; seconds: number; errors: string[] };
}

const ERROR_LINE = /\[(error|fatal|panic)\]|corrupt decoded frame|concealing \d+ DC/;

const SHOWN = /Parsed_showinfo.*\bn:\s*\d+ /;
const KEY = /iskey:1/;

/** Frames shown from the first keyframe on (what came before is a receiver joining, not damage). */
function framesFromFirstKey(stderr: string): number {
  let n = -1;
  for (const l of stderr.split('\n')) {
    if (!SHOWN.test(l)) continue;
    if (n < 0 && KEY.test(l)) n = 0;
    if (n >= 0) n += 1;
  }
  return Math.max(n, 0);
}

/**
 * Reads ffmpeg's stderr into a verdict: frames, keyframes and error lines counted from the first keyframe. With
 * frameMs (a receiver whose timestamps are the sender's RTP times: the bundle front end), a step of more than one and
 * a half frame periods between decoded frames is frames missing, which fails too: a frame the front end drops (av1parse
 * drops a temporal unit it cannot parse, matroskamux one without a timestamp) never reaches ffmpeg to print an error.
 */
export function verdictOf(stderr: string, frames: number, minKeyframes: number, frameMs?: number): Verdict {
  const lines = stderr.split('\n');
  const firstKey = lines.findIndex((l) => SHOWN.test(l) && KEY.test(l));
  const after = firstKey < 0 ? [] : lines.slice(firstKey);
  const shown = after.filter((l) => SHOWN.test(l));
  const errors = after.filter((l) => ERROR_LINE.test(l)).map((l) => l.trim());
  const inputEnd = lines.findIndex((l) => /Stream mapping:|Output #0/.test(l));
  const streams = lines.slice(0, inputEnd < 0 ? lines.length : inputEnd).filter((l) => /^\[info\]\s+Stream #0:\d+/.test(l))
    .map((l) => l.replace(/^\[info\]\s+Stream #0:\d+(\[[^\]]*\])?(\([^)]*\))?:\s*/, '').trim());
  const keyframes = shown.filter((l) => KEY.test(l)).length;
  let reason: string | undefined;
  if (firstKey < 0) reason = `no keyframe decoded (${lines.filter((l) => SHOWN.test(l)).length} frames)`;
  else if (shown.length < frames) reason = `decoded ${shown.length} of ${frames} frames from the first keyframe`;
  else if (keyframes < minKeyframes) reason = `${keyframes} keyframes in ${shown.length} frames (expected ${minKeyframes})`;
  else if (errors.length) reason = `${errors.length} error lines after the first keyframe`;
  if (!reason && frameMs) {
    const pts = shown.map((l) => Number(/pts_time:\s*(-?[\d.]+)/.exec(l)?.[1] ?? NaN) * 1000);
    const gap = pts.findIndex((t, i) => i > 0 && t - pts[i - 1] > 1.5 * frameMs);
    if (gap > 0) reason = `frames missing: ${Math.round(pts[gap] - pts[gap - 1])} ms between decoded frames ${gap - 1} and ${gap} (one frame is ${Math.round(frameMs)} ms)`;
  }
  return { ok: !reason, decoded: shown.length, keyframes, errors, streams, reason, log: stderr };
}

/** `-frames:v` unset (0) for a file, read whole; a live receiver is stopped (SIGINT) once it has its frames. */
function ffmpegArgs(input: string[]): string[] {
  return ['-hide_banner', '-nostdin', '-loglevel', 'level+info', ...input, '-map', '0:v:0', '-vf', 'showinfo', '-f', 'null', '-'];
}

/** Spawns ffmpeg; a live one is stopped once it has shown `live` frames from its first keyframe. */
function spawnFfmpeg(input: string[], live: number | undefined, timeoutMs: number) {
  const child = spawn('ffmpeg', ffmpegArgs(input));
  let stderr = '';
  let stopping = false;
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (live !== undefined && !stopping && framesFromFirstKey(stderr) >= live) {
      stopping = true;
      child.kill('SIGINT');
    }
  });
  child.stdout.on('data', () => undefined);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exited = new Promise<string>((resolve) => child.on('exit', () => {
    clearTimeout(timer);
    resolve(stderr);
  }));
  return { child, exited };
}

/** ffmpeg reads input (a URL, or a file when live is undefined: read whole) directly. */
export async function ffmpegJudge(input: string[], frames: number, minKeyframes: number, timeoutMs: number, live?: number): Promise<Verdict> {
  return verdictOf(await spawnFfmpeg(input, live, timeoutMs).exited, frames, minKeyframes);
}

/** ffmpeg listening (TCP connect outputs): started first; `ready` resolves when its socket listens. */
export function ffmpegListening(port: number, frames: number, minKeyframes: number, timeoutMs: number, outputOptions: string[] = []): { ready: Promise<void>; done: Promise<Verdict>; stop: () => void } {
  const { child, exited } = spawnFfmpeg(['-i', `tcp://127.0.0.1:${port}?listen=1`, ...outputOptions], frames, timeoutMs);
  const done = exited.then((stderr) => verdictOf(stderr, frames, minKeyframes));
  return { ready: waitListening(port, 5000), done, stop: () => child.kill('SIGKILL') };
}

/**
 * A TCP listener for an output that connects (RFC 4571 RTP): it accepts the pipeline's connection at once and keeps
 * every byte from the first, so a receiver built later (once the SDP says what the bundle holds) reads the stream
 * from its start, framing intact.
 */
export async function tcpCatcher(port: number): Promise<{ stream: Readable; close: () => void }> {
  const stream = new PassThrough({ highWaterMark: 8 << 20 });
  let socket: Socket | undefined;
  const server = createServer((s) => {
    if (socket) { s.destroy(); return; }
    socket = s;
    s.on('error', () => undefined);
    s.pipe(stream);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return { stream, close: () => { socket?.destroy(); server.close(); stream.end(); } };
}

/** Whether /proc/net/<table> has a socket on `port` in `state` (hex: 0A listening TCP, 07 a bound UDP socket). */
function inProcNet(table: 'tcp' | 'udp', port: number, state: string): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync(`/proc/net/${table}`, 'utf8').split('\n').some((l) => {
    const f = l.trim().split(/\s+/);
    return f[1]?.endsWith(`:${hex}`) && f[3] === state;
  });
}

async function waitProcNet(table: 'tcp' | 'udp', port: number, state: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!inProcNet(table, port, state)) {
    if (Date.now() > deadline) throw new Error(`no ${table} socket on port ${port}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Until something listens on TCP `port` (read from /proc/net/tcp: a probe connection would be the one client a server takes). */
export function waitListening(port: number, timeoutMs: number): Promise<void> {
  return waitProcNet('tcp', port, '0A', timeoutMs);
}

/** Until a UDP socket is bound to `port` (a receiver is ready for the first datagram). */
export function waitUdpBound(port: number, timeoutMs: number): Promise<void> {
  return waitProcNet('udp', port, '07', timeoutMs);
}

/** The m= lines of an SDP: payload type, media, encoding name and the caps a GStreamer receiver gives them. */
export function sdpStreams(sdp: string): Array<{ pt: number; media: string; encoding: string; caps: string }> {
  return sdp.split(/\r?\n(?=m=)/).filter((b) => b.startsWith('m=')).map((block) => {
    const [, media, pt] = /^m=(\S+) \d+ \S+ (\d+)/.exec(block)!;
    const [, enc, rate] = new RegExp(`a=rtpmap:${pt} ([A-Za-z0-9-]+)/(\\d+)`).exec(block) ?? [, 'unknown', '90000'];
    const fmtp = new RegExp(`a=fmtp:${pt} ([^\\r\\n]*)`).exec(block)?.[1];
    const params = fmtp ? `,${fmtp.split(';').map((kv) => kv.trim().replace('=', '=(string)')).join(',')}` : '';
    return { pt: Number(pt), media, encoding: enc!.toUpperCase(), caps: `application/x-rtp,media=${media},clock-rate=${rate},encoding-name=${enc!.toUpperCase()},payload=${pt}${params}` };
  });
}

/**
 * The bundle front end's jitter buffer: timestamps from RTP time alone (`mode=none`), not from arrival times.
 * In its default mode (slave) rtpjitterbuffer derives each packet's time from when it arrived, smoothed by a skew
 * estimate and never going backwards; packets that arrive in a burst (a sender or receiver that did not get the CPU
 * for a moment, bytes read from TCP in one go) got shrinking and then *equal* times. av1parse strips a repeated
 * timestamp, matroskamux drops a temporal unit without one ("Invalid buffer timestamp; dropping buffer"), and ffmpeg
 * then decoded a stream with frames missing: "Error parsing frame header" (issue 14, docs/dataplane.md). With RTP
 * time two frames share a timestamp only when the sender gave them one, and that still fails the case.
 * The RTSP front end's rtspsrc runs its jitter buffers the same way (`buffer-mode=none`): in slave mode a decoded
 * frame under load was stamped one frame behind the one before ("non monotonically increasing dts", 1 case in 60).
 */
export const BUNDLE_JITTER = 'rtpjitterbuffer latency=500 mode=none';

/**
 * The side files (Codec2, KLV) are written as each buffer comes. filesink's default 64 KiB buffer held a whole
 * case's audio (2400 bit/s) until EOS, and a front end that did not finish its EOS within FRONT_END_EOS_MS under a
 * full suite's load was killed with its file still empty: "no Codec2 audio at the receiver (udp: 0 s, 0 errors)"
 * while its video had decoded (CI, 2026-11-27, two AV1 UDP cases at once).
 */
const UNBUFFERED = 'buffer-mode=unbuffered';
/** How long a front end gets to finish its EOS after SIGINT before it is killed; its verdict log says so if it was. */
const FRONT_END_EOS_MS = 10000;

/**
 * The gst-launch front end for AV1 over RTP. A bundle (UDP, multicast, TCP): `src` ends in the RTP packets of every
 * stream of the SDP, split by payload type. RTSP: `src` is an rtspsrc, whose pads link by caps. AV1 goes out on
 * stdout in Matroska, Codec2 into `<stem>.c2` (raw frames), KLV into `<stem>.klv`; anything else is dropped.
 */
export function av1FrontEnd(kind: 'bundle' | 'rtsp', src: (videoCaps: string) => string, stem: string, sdp: string): string {
  const tail = 'rtpav1depay ! av1parse ! matroskamux streamable=true ! fdsink fd=1';
  const streams = sdpStreams(sdp);
  if (kind === 'rtsp') {
    // rtspsrc (its own jitter buffer) gives one pad per track; each links to the depayloader its caps fit.
    const audio = streams.some((s) => s.encoding === 'CODEC2') ? ` r. ! queue ! rtpcodec2depay ! filesink location=${stem}.c2 ${UNBUFFERED}` : '';
    const klv = streams.some((s) => s.encoding === 'SMPTE336M') ? ` r. ! queue ! rtpklvdepay ! filesink location=${stem}.klv ${UNBUFFERED}` : '';
    return `${src('')} name=r r. ! queue ! ${tail}${audio}${klv}`;
  }
  const video = streams.find((s) => s.encoding === 'AV1');
  if (!video) throw new Error(`no AV1 stream in the SDP:\n${sdp}`);
  // Split by payload type; a jitter buffer per stream stamps by RTP time alone (BUNDLE_JITTER). Every sink
  // async=false, as docs/audio.md's receiver recipe: with prerolling sinks a receiver started on a running bundle
  // could wait in preroll for good.
  const branches = streams.map((s) => {
    const set = `queue ! capssetter join=false replace=true caps=${s.caps} ! ${BUNDLE_JITTER}`;
    if (s === video) return `d.src_${s.pt} ! queue ! ${BUNDLE_JITTER} ! ${tail} async=false`;
    if (s.encoding === 'CODEC2') return `d.src_${s.pt} ! ${set} ! rtpcodec2depay ! filesink location=${stem}.c2 ${UNBUFFERED} async=false`;
    if (s.encoding === 'SMPTE336M') return `d.src_${s.pt} ! ${set} ! rtpklvdepay ! filesink location=${stem}.klv ${UNBUFFERED} async=false`;
    return `d.src_${s.pt} ! queue ! fakesink async=false`;
  });
  return `${src(video.caps)} ! rtpptdemux name=d ${branches.join(' ')}`;
}

/** Runs a gst-launch front end whose stdout (Matroska) ffmpeg decodes; the front end is stopped when ffmpeg is done. */
export async function pipedJudge(gstDescription: string, frames: number, minKeyframes: number, timeoutMs: number, stem?: string, input?: Readable, codec2Mode = 2400, frameMs?: number): Promise<Verdict> {
  const gst = spawn('gst-launch-1.0', ['-q', '-e', ...splitDescription(gstDescription)], { env: { ...process.env, ...GST_ENV } });
  if (input) {
    gst.stdin.on('error', () => undefined);
    input.pipe(gst.stdin);
  }
  let gstErr = '';
  gst.stderr.on('data', (d: Buffer) => { gstErr += d.toString(); });
  const ff = spawnFfmpeg(['-f', 'matroska', '-i', 'pipe:0'], frames, timeoutMs);
  gst.stdout.pipe(ff.child.stdin);
  ff.child.stdin.on('error', () => undefined);
  gst.stdout.on('error', () => undefined);
  const gstExit = new Promise<void>((r) => gst.on('exit', () => r()));
  const stderr = await ff.exited;
  // EOS on SIGINT (-e): the files of the other payload types are finished.
  gst.kill('SIGINT');
  let killed = false;
  const killer = setTimeout(() => { killed = true; gst.kill('SIGKILL'); }, FRONT_END_EOS_MS);
  await gstExit;
  clearTimeout(killer);
  const v = verdictOf(stderr, frames, minKeyframes, frameMs);
  v.log = `gst-launch-1.0 ${gstDescription}\n${killed ? `(killed: no EOS within ${FRONT_END_EOS_MS} ms)\n` : ''}${gstErr}\n${stderr}`;
  if (stem) {
    v.klvBytes = existsSync(`${stem}.klv`) ? statSync(`${stem}.klv`).size : 0;
    if (existsSync(`${stem}.c2`)) v.audio = await judgeCodec2File(`${stem}.c2`, codec2Mode);
  }
  return v;
}

/** ffmpeg decodes a Codec2 file (libcodec2): how long, and every error line. */
export async function judgeCodec2File(path: string, mode: number): Promise<{ decoded: boolean; seconds: number; errors: string[] }> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'level+info', '-f', 'codec2raw', '-mode', String(mode), '-i', path, '-f', 'null', '-'], { timeoutMs: 10000 });
  const errors = r.stderr.split('\n').filter((l) => ERROR_LINE.test(l)).map((l) => l.trim());
  const times = [...r.stderr.matchAll(/time=(\d+):(\d+):([\d.]+)/g)];
  const last = times[times.length - 1];
  const seconds = last ? Number(last[1]) * 3600 + Number(last[2]) * 60 + Number(last[3]) : 0;
  return { decoded: r.code === 0, seconds, errors };
}

/** gst-launch arguments: tokens split on spaces (no token here has one). */
function splitDescription(d: string): string[] {
  return d.split(/\s+/).filter(Boolean);
}
