/**
 * Receives an MPEG-TS stream over UDP (encoderd's udp output: 7 × 188-byte packets per datagram) and records
 * every video frame from the stream itself: one PES start (payload_unit_start_indicator with a video stream id
 * 0xE0–0xEF) is one access unit, i.e. one frame, as mpegtsmux writes H.264. For each frame: arrival time, PTS
 * (90 kHz) and the bytes of the stream so far.
 */
import { createSocket } from 'node:dgram';

const TS = 188;

export function parseFrames(datagram, onFrame) {
  for (let off = 0; off + TS <= datagram.length; off += TS) {
    if (datagram[off] !== 0x47) continue;
    const pusi = (datagram[off + 1] & 0x40) !== 0;
    if (!pusi) continue;
    const afc = (datagram[off + 3] >> 4) & 0x3;
    let p = off + 4;
    if (afc === 2) continue;
    if (afc === 3) p += 1 + datagram[p];
    if (p + 14 > off + TS) continue;
    if (datagram[p] !== 0 || datagram[p + 1] !== 0 || datagram[p + 2] !== 1) continue;
    const streamId = datagram[p + 3];
    if (streamId < 0xe0 || streamId > 0xef) continue;
    const ptsFlag = (datagram[p + 7] & 0x80) !== 0;
    let pts = null;
    if (ptsFlag) {
      const b = datagram.subarray(p + 9, p + 14);
      // 33 bits: 3 + 15 + 15, with marker bits between; fits in a double exactly.
      pts = ((b[0] >> 1) & 0x07) * 2 ** 30 + (b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1);
    }
    onFrame(pts);
  }
}

/** A UDP receiver on 127.0.0.1 (a free port unless one is given) collecting frames. */
export async function tsReceiver(port = 0) {
  const sock = createSocket('udp4');
  const frames = [];
  let bytes = 0;
  let datagrams = 0;
  let keep = null;
  sock.on('message', (data) => {
    const at = performance.now();
    bytes += data.length;
    datagrams++;
    if (keep) keep.push(data);
    parseFrames(data, (pts) => frames.push({ at, pts, bytes }));
  });
  await new Promise((resolve, reject) => {
    sock.once('error', reject);
    sock.bind(port, '127.0.0.1', resolve);
  });
  // A large receive buffer: the benchmark must not lose datagrams on its own side.
  try {
    sock.setRecvBufferSize(8 * 1024 * 1024);
  } catch {
    /* capped by net.core.rmem_max; the default still holds a few frames */
  }
  return {
    port: sock.address().port,
    frames,
    stats: () => ({ bytes, datagrams }),
    /** Keeps raw datagrams from now on (to hand a piece of the stream to ffprobe). */
    record() {
      keep = [];
      return () => {
        const all = Buffer.concat(keep);
        keep = null;
        return all;
      };
    },
    /** Frames that arrived in [from, to) (performance.now() milliseconds). */
    framesBetween: (from, to) => frames.filter((f) => f.at >= from && f.at < to),
    close: () => sock.close(),
  };
}

/** Frames missing from a run of PTS at a known frame rate: every gap of n frame durations hides n − 1 frames. */
export function lostByPts(frames, fps) {
  const step = 90000 / fps;
  let lost = 0;
  let largestGap = 0;
  for (let i = 1; i < frames.length; i++) {
    const a = frames[i - 1].pts;
    const b = frames[i].pts;
    if (a === null || b === null) continue;
    const gap = b - a;
    largestGap = Math.max(largestGap, gap);
    const missing = Math.round(gap / step) - 1;
    if (missing > 0) lost += missing;
  }
  return { lost, largestGapMs: (largestGap / 90000) * 1000 };
}

/** The largest gap between consecutive frames' arrivals, in ms. */
export function largestArrivalGap(frames) {
  let gap = 0;
  let at = null;
  for (let i = 1; i < frames.length; i++) {
    const g = frames[i].at - frames[i - 1].at;
    if (g > gap) {
      gap = g;
      at = frames[i - 1].at;
    }
  }
  return { gapMs: gap, after: at };
}
