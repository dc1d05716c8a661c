/**
 * Standard receivers for the interop tests: plain gst-launch-1.0 pipelines (the standalone encoderd GStreamer
 * plugin on GST_PLUGIN_PATH gives them rtpav1depay, as any third-party GStreamer receiver would have it) and
 * ffprobe. Each receiver ends with `identity eos-after=N`, so reaching EOS means N frames were decoded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, run } from '../helpers/service';

export const GST_ENV = { GST_PLUGIN_PATH: join(ROOT, 'native/build/gst-plugins'), GST_DEBUG: '0' };

/** Small frames and a low rate keep three encoders at once affordable on two cores. */
export const FRAME = { width: 320, height: 240, fps: 15 };
export const FRAMES = 10;

export const CODECS = {
  h264: { depay: 'rtph264depay', parse: 'h264parse', dec: 'avdec_h264', probe: 'h264' },
  h265: { depay: 'rtph265depay', parse: 'h265parse', dec: 'avdec_h265', probe: 'hevc' },
  av1: { depay: 'rtpav1depay', parse: 'av1parse', dec: 'av1dec', probe: 'av1' },
} as const;
export type Codec = keyof typeof CODECS;

export function body(id: string, codec: Codec, outputUri: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    mode: 'simple',
    source: { uri: 'test://ball' },
    encoding: { codec, bitrate: 300, ...FRAME, quality: 1 },
    output: { uri: outputUri },
    ...extra,
  };
}

/** Decodes the codec's elementary stream and stops after n frames. */
export function decodeTail(codec: Codec, n = FRAMES): string {
  const c = CODECS[codec];
  return `${c.parse} ! ${c.dec} ! identity eos-after=${n} ! fakesink sync=false`;
}

export function tsTail(codec: Codec, n = FRAMES): string {
  return `tsdemux ! ${decodeTail(codec, n)}`;
}

export function rtpTail(codec: Codec, n = FRAMES): string {
  return `${CODECS[codec].depay} ! ${decodeTail(codec, n)}`;
}

export interface Receiver {
  done: Promise<{ code: number | null; output: string }>;
  child: ChildProcess;
}

/** Starts gst-launch-1.0 on a description (tokens split on spaces). */
export function receive(description: string, timeoutMs = 20000): Receiver {
  const child = spawn('gst-launch-1.0', description.split(/\s+/).filter(Boolean), { env: { ...process.env, ...GST_ENV } });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: `${description}\n${output}` });
    });
  });
  return { done, child };
}

/**
 * The receiver decoded its frames when the pipeline reached EOS (identity eos-after=N) before any error. An
 * RTSP teardown refused after that (the server ended the session first) makes gst-launch exit 1 without
 * taking anything back from what was received.
 */
export async function expectReceived(r: Receiver): Promise<void> {
  const { code, output } = await r.done;
  if (code === 0) return;
  const eos = output.indexOf('Got EOS from element "pipeline0"');
  const error = output.indexOf('ERROR:');
  if (eos >= 0 && (error < 0 || eos < error)) return;
  throw new Error(`receiver failed (${code}): ${output}`);
}

export async function probe(path: string): Promise<{ codec: string; width: number; height: number; duration: number }> {
  const r = await run('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,width,height:format=duration', '-of', 'json', path]);
  if (r.code !== 0) throw new Error(`ffprobe failed on ${path}: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { streams: Array<{ codec_name: string; width: number; height: number }>; format: { duration?: string } };
  const s = j.streams[0];
  return { codec: s.codec_name, width: s.width, height: s.height, duration: Number(j.format.duration ?? 0) };
}
