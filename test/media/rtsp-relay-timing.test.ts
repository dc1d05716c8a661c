// An RTSP source passed through to a local RTSP output keeps the source's timing (issue 14). The origin is an
// encoderd H.264 RTSP output of a live test source at 15 fps: its RTP timestamps step by exactly 6000 (90 kHz). The
// relay (no encoding) must hand the same cadence on, not its arrival times: ffprobe reads the relayed stream's
// packets and finds the DTS strictly increasing, each step on the source's 1/fps grid within 1 ms. docs/dataplane.md,
// passthrough ("Timing").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { body, FRAME } from './receivers';

let svc: RunningService;

beforeAll(async () => {
  svc = await startService({ args: ['--start-timeout-ms', '6000'] });
});

afterAll(async () => {
  await svc?.stop();
});

async function create(b: object): Promise<void> {
  const r = await svc.api('POST', '/svc/pipeline', b);
  expect(r.status, r.text).toBe(201);
  expect(r.body.state).toBe('playing');
}

async function remove(id: string): Promise<void> {
  await svc.api('PUT', `/svc/pipeline/${id}/stop`);
  await svc.api('DELETE', `/svc/pipeline/${id}`);
}

interface Packet { pts: number; dts: number; key: boolean }

/**
 * The video packets of an RTSP URL (over TCP) in the first `seconds` read, in 90 kHz ticks, after ffmpeg's first
 * timestamped one: its RTP demuxer gives the first packet of a session no timestamp (it has no reference yet). With
 * `videoOnly` ffmpeg sets up the video track alone and its timestamps are the RTP timestamps as sent; with every track
 * (the outputs carry KLV beside the video) it maps them through the sender's RTCP reports, as a player does.
 */
async function packets(url: string, seconds: number, videoOnly: boolean): Promise<Packet[]> {
  const r = await run('ffprobe', ['-v', 'error', '-rtsp_transport', 'tcp', ...(videoOnly ? ['-allowed_media_types', 'video'] : []), '-i', url,
    '-select_streams', 'v', '-read_intervals', `%+${seconds}`, '-show_entries', 'packet=pts,dts,flags', '-of', 'json'], { timeoutMs: 20000 });
  if (r.code !== 0) throw new Error(`ffprobe ${url}: ${r.stderr}`);
  const all = (JSON.parse(r.stdout) as { packets: Array<{ pts?: number; dts?: number; flags: string }> }).packets;
  const first = all.findIndex((p) => p.dts !== undefined);
  return all.slice(first).map((p) => ({ pts: p.pts ?? NaN, dts: p.dts ?? NaN, key: p.flags.startsWith('K') }));
}

/** Each step between consecutive DTS, in ticks, and how far it is from a whole number of frame periods. */
function steps(pkts: Packet[], period: number) {
  const out: Array<{ step: number; off: number }> = [];
  for (let i = 1; i < pkts.length; i++) {
    const step = pkts[i].dts - pkts[i - 1].dts;
    out.push({ step, off: Math.abs(step - Math.max(1, Math.round(step / period)) * period) });
  }
  return out;
}

const PERIOD = 90000 / FRAME.fps;
const TOLERANCE = 90; // 1 ms

describe('an H.264 RTSP source relayed without re-encoding to a local RTSP output', () => {
  let origin: string;
  beforeAll(async () => {
    const port = await freePort();
    await create(body('timing-origin', 'h264', `rtsp://127.0.0.1:${port}/o`));
    origin = `rtsp://127.0.0.1:${port}/o`;
  });
  afterAll(async () => remove('timing-origin'));

  /** DTS strictly increasing, PTS never before DTS, every step a whole number of frame periods within TOLERANCE. */
  function expectOnGrid(pkts: Packet[], minFrames: number): void {
    const detail = JSON.stringify(pkts.map((p, i) => `${p.key ? 'K' : ''}${i ? p.dts - pkts[i - 1].dts : 0}`));
    expect(pkts.length, detail).toBeGreaterThanOrEqual(minFrames);
    const s = steps(pkts, PERIOD);
    expect(s.every((x) => x.step > 0), detail).toBe(true);
    expect(Math.max(...s.map((x) => x.off)), detail).toBeLessThanOrEqual(TOLERANCE);
    expect(pkts.every((p) => p.pts >= p.dts), detail).toBe(true);
  }

  it('the origin steps by one frame period (the control)', async () => {
    expectOnGrid(await packets(origin, 3, true), 40);
  });

  it('the relay keeps that cadence, read as sent and as a player maps it: monotonic, on the 1/fps grid within 1 ms', async () => {
    const port = await freePort();
    const url = `rtsp://127.0.0.1:${port}/r`;
    await create({ id: 'timing-relay', mode: 'simple', source: { uri: origin, latency_ms: 100 }, output: { uri: url } });
    try {
      // Four seconds each: the origin's 2 s GOP puts two keyframes in, besides the one the relay starts on.
      // The first PLAY may come before the relay has a keyframe to start its media on (503): a player retries.
      const asSent = await waitFor(() => packets(url, 4, true), 30000, 500);
      const mapped = await packets(url, 4, false);
      expect(asSent.filter((p) => p.key).length).toBeGreaterThanOrEqual(2);
      expectOnGrid(asSent, 50);
      expectOnGrid(mapped, 50);
    } finally {
      await remove('timing-relay');
    }
  });
});
