/**
 * A recorded MPEG-TS stream sent over UDP to 127.0.0.1 in real time, paced by its PCR, 7 TS packets a datagram as
 * STANAG 4609 senders send, that can be told to stall: what falls due in the stall is held and goes out at once at
 * its end (a burst), then the stream goes on in real time. That is what a receiver sees of a sender, or of its own
 * relay, that got no CPU for a while (issue 14, receiver matrix item 5).
 */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { run } from '../helpers/service';
import { FRAME } from './receivers';

const TS_PACKET = 188;
const PER_DATAGRAM = 7;

/** Records seconds of 320x240 15 fps ball pattern, a keyframe a second, as MPEG-TS (alignment=7) into path. */
export async function recordTs(path: string, codec: 'h264' | 'h265', seconds: number): Promise<void> {
  const enc = codec === 'h264' ? ['x264enc', 'tune=zerolatency', 'speed-preset=ultrafast', 'bitrate=600', `key-int-max=${FRAME.fps}`]
    : ['x265enc', 'tune=zerolatency', 'speed-preset=ultrafast', 'bitrate=600', `key-int-max=${FRAME.fps}`];
  const r = await run('gst-launch-1.0', ['-q', 'videotestsrc', `num-buffers=${seconds * FRAME.fps}`, 'pattern=ball', '!',
    `video/x-raw,width=${FRAME.width},height=${FRAME.height},framerate=${FRAME.fps}/1`, '!', ...enc, '!',
    `${codec}parse`, 'config-interval=-1', '!', 'mpegtsmux', 'alignment=7', '!', 'filesink', `location=${path}`], { timeoutMs: 60000 });
  if (r.code !== 0) throw new Error(`recording ${codec} failed: ${r.stderr}`);
}

/** The PCR (s) of a datagram's first TS packet that carries one. */
function pcrOf(d: Buffer): number | undefined {
  for (let o = 0; o + TS_PACKET <= d.length; o += TS_PACKET) {
    const hasAdaptation = (d[o + 3] >> 4) & 2;
    if (hasAdaptation && d[o + 4] > 0 && d[o + 5] & 0x10) {
      const b = d.subarray(o + 6, o + 11);
      return (b[0] * 2 ** 25 + b[1] * 2 ** 17 + b[2] * 2 ** 9 + b[3] * 2 + (b[4] >> 7)) / 90000;
    }
  }
  return undefined;
}

export interface BurstSender {
  /** Holds what falls due for ms, then sends it at once. */
  stall(ms: number): void;
  /** Resolves when the recording has been sent to its end (or stop() was called). */
  done: Promise<void>;
  stop(): void;
}

/** Starts sending the MPEG-TS file at path to 127.0.0.1:port in real time: a datagram goes at its last PCR's time. */
export function sendTs(path: string, port: number): BurstSender {
  const ts = readFileSync(path);
  const datagrams: Array<{ data: Buffer; at: number }> = [];
  let first: number | undefined;
  let at = 0;
  for (let i = 0; i < ts.length; i += TS_PACKET * PER_DATAGRAM) {
    const data = ts.subarray(i, Math.min(ts.length, i + TS_PACKET * PER_DATAGRAM));
    const pcr = pcrOf(data);
    if (pcr !== undefined) {
      first ??= pcr;
      at = (pcr - first) * 1000;
    }
    datagrams.push({ data, at });
  }
  const sock = createSocket('udp4');
  let heldUntil = 0;
  let stopped = false;
  const t0 = Date.now();
  const done = (async () => {
    for (const d of datagrams) {
      if (stopped) break;
      // A stall begun while a datagram waits holds it too: its time is read again after every wait.
      const due = () => Math.max(t0 + d.at, heldUntil);
      while (!stopped && Date.now() < due()) await new Promise((r) => setTimeout(r, due() - Date.now()));
      sock.send(d.data, port, '127.0.0.1');
    }
    await new Promise((r) => setTimeout(r, 100));
    sock.close();
  })();
  return { stall: (ms) => { heldUntil = Date.now() + ms; }, done, stop: () => { stopped = true; } };
}
