// What a receiver outside encoderd sees of KLV, for the KLV tests: gst-launch-1.0 (rtspsrc ! rtpklvdepay, tsdemux),
// ffprobe and ffmpeg, and the ST 0601 decoder of core/klv.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { decodeSt0601, type St0601Decoded } from '../../core/klv/st0601';
import { run, sleep } from '../helpers/service';

// Half a step of each ST 0601 mapping (the encoder rounds to nearest), plus float slack.
export const PREC = { lat: 90 / (2 ** 31 - 1) / 2 + 1e-12, lon: 180 / (2 ** 31 - 1) / 2 + 1e-12, alt: 19900 / 65535 / 2 + 1e-9, heading: 360 / 65535 / 2 + 1e-9 };

export interface Position { latitude: number; longitude: number; altitude: number; heading: number }

export function expectPosition(d: Partial<St0601Decoded>, want: Position): void {
  expect(d.checksumOk).toBe(true);
  expect(Math.abs(d.latitude! - want.latitude)).toBeLessThanOrEqual(PREC.lat);
  expect(Math.abs(d.longitude! - want.longitude)).toBeLessThanOrEqual(PREC.lon);
  expect(Math.abs(d.altitude! - want.altitude)).toBeLessThanOrEqual(PREC.alt);
  expect(Math.abs(d.heading! - want.heading)).toBeLessThanOrEqual(PREC.heading);
}

/** Decodes every file gst-launch's multifilesink wrote, one KLV packet each, in order. */
function packetsIn(dir: string): St0601Decoded[] {
  return readdirSync(dir).sort().map((f) => decodeSt0601(readFileSync(join(dir, f))));
}

/**
 * An RTSP client: gst-launch-1.0 rtspsrc (over TCP) with the video to a fakesink and the KLV track depayloaded by
 * rtpklvdepay into files, until it has written `packets` of them (then an interrupt ends it with EOS), or for
 * `timeoutMs` at most. Returns the ST 0601 packets decoded. Counted, not timed: a passed-through source's session
 * waits for the source's next keyframe, and a loaded machine took more than 3 s for that once.
 */
export async function rtspKlv(url: string, scratch: string, packets: number, timeoutMs = 20000): Promise<{ packets: St0601Decoded[]; stderr: string }> {
  const out = mkdtempSync(join(scratch, 'rtsp-klv-'));
  const child = spawn('gst-launch-1.0', ['-e', '-q',
    'rtspsrc', `location=${url}`, 'protocols=tcp', 'name=s',
    's.', '!', 'application/x-rtp,media=video', '!', 'fakesink',
    's.', '!', 'application/x-rtp,media=application,encoding-name=SMPTE336M', '!', 'rtpklvdepay', '!', 'multifilesink', `location=${out}/%05d.bin`,
  ]);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const deadline = Date.now() + timeoutMs;
  // One more file than asked: multifilesink may be writing the last one when it is listed.
  while (child.exitCode === null && readdirSync(out).length <= packets && Date.now() < deadline) await sleep(100);
  child.kill('SIGINT');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(killer);
  return { packets: packetsIn(out), stderr };
}

/** The KLV of an MPEG-TS file: ffprobe's stream list and KLV packet PTS, gst-launch tsdemux's meta/x-klv buffers decoded. */
export async function tsKlv(ts: string, scratch: string): Promise<{ streams: string; pts: Array<number | null>; packets: St0601Decoded[] }> {
  const probe = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name,codec_tag_string', '-of', 'csv=p=0', ts]);
  const pk = await run('ffprobe', ['-v', 'error', '-select_streams', 'd', '-show_entries', 'packet=pts', '-of', 'json', ts]);
  const out = mkdtempSync(join(scratch, 'ts-klv-'));
  const demux = await run('gst-launch-1.0', ['-q', 'filesrc', `location=${ts}`, '!', 'tsdemux', '!', 'meta/x-klv', '!', 'multifilesink', `location=${out}/%05d.bin`], { timeoutMs: 20000 });
  expect(demux.code, demux.stderr).toBe(0);
  const pts = (JSON.parse(pk.stdout).packets ?? []).map((p: { pts?: number }) => (typeof p.pts === 'number' ? p.pts : null));
  return { streams: probe.stdout, pts, packets: packetsIn(out) };
}

/**
 * ffmpeg's damage report decoding `frames` video frames of `input` (extra input options before -i), judged as in
 * test/media/ffmpeg-receivers.test.ts: the error lines (and "corrupt decoded frame", "concealing … errors") after
 * the first decoded frame. What comes before it is a joiner's wait for a keyframe, which a passed-through stream
 * cannot be asked for. `decoded` counts the frames ffmpeg output.
 */
export async function ffmpegErrors(input: string, frames: number, inputOptions: string[] = []): Promise<{ errors: string[]; decoded: number; log: string }> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'level+info', ...inputOptions, '-i', input,
    '-map', '0:v:0', '-frames:v', String(frames), '-vf', 'showinfo', '-f', 'null', '-'], { timeoutMs: 40000 });
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stderr.split('\n');
  const first = lines.findIndex((l) => /Parsed_showinfo.*\bn:\s*0 /.test(l));
  const errors = first < 0 ? [] : lines.slice(first).filter((l) => /\[(error|fatal|panic)\]|corrupt decoded frame|concealing \d+ DC/.test(l));
  return { errors, decoded: lines.filter((l) => /Parsed_showinfo.*\bn:\s*\d+ /.test(l)).length, log: r.stderr };
}

/** ffmpeg decodes `frames` frames of `input` with no damage after the first. */
export async function expectCleanDecode(input: string, frames: number, inputOptions: string[] = []): Promise<void> {
  const r = await ffmpegErrors(input, frames, inputOptions);
  expect(r.errors, r.log).toEqual([]);
  expect(r.decoded, r.log).toBeGreaterThanOrEqual(frames);
}
