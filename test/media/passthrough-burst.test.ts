// A passed-through UDP MPEG-TS source that stalls and then bursts (issue 14, receiver matrix item 5). tsdemux maps
// PTS/DTS through its PCR clock recovery, kept on purpose (docs/dataplane.md, passthrough, "Timing"); when arrival
// falls more than a second behind the PCR it resets its estimate to the late arrival ("delta - skew … too big, reset
// skew"): the first frame after the stall jumps forward by the stall, and the estimate then converges back to the
// sender's clock over about 2 s, handing on a run of backward DTS. Without the relay's DTS guard (dtsguard after the
// parser) every case here fails: backward DTS in .mkv, PTS before DTS in .ts (mpegtsmux holds the DTS back), and
// "non monotonically increasing dts" from ffmpeg reading the RTSP output; with it the DTS strictly increase and
// ffmpeg reads every case clean.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { ffmpegErrors } from './ffmpeg-judge';
import { ffmpegJudge } from './matrix/judge';
import { FRAME } from './receivers';
import { recordTs, sendTs, type BurstSender } from './ts-burst';

/** Longer than tsdemux's 1 s reset threshold; what the matrix's senders got under load is not known, only its effect. */
const STALL_MS = 1500;

let svc: RunningService;
let dir: string;
const senders: BurstSender[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'encoderd-burst-'));
  [svc] = await Promise.all([
    startService({ args: ['--start-timeout-ms', '12000'] }),
    recordTs(join(dir, 'h264.ts'), 'h264', 20),
    recordTs(join(dir, 'h265.ts'), 'h265', 20),
  ]);
});

afterAll(async () => {
  for (const s of senders) s.stop();
  await svc?.stop();
});

/** The video packets' DTS and PTS of a file in its stream's time base, in order, as ffprobe reads them. */
async function stampsOf(path: string): Promise<Array<{ dts: number; pts: number }>> {
  const r = await run('ffprobe', ['-v', 'error', '-select_streams', 'v', '-show_entries', 'packet=dts,pts', '-of', 'json', path]);
  return (JSON.parse(r.stdout) as { packets: Array<{ dts: number; pts: number }> }).packets;
}

const frames = async (id: string): Promise<number> => (await svc.api('GET', `/svc/pipeline/${id}`)).body.stats?.output?.frames ?? 0;

/** Starts a passthrough pipeline from a sender of the codec's recording, and waits for its first second of frames. */
async function relay(id: string, codec: 'h264' | 'h265', outputUri: string): Promise<BurstSender> {
  const port = await freePort();
  const sender = sendTs(join(dir, `${codec}.ts`), port);
  senders.push(sender);
  // The source must be sending when the pipeline starts: its codec is probed first.
  const r = await svc.api('POST', '/svc/pipeline', { id, mode: 'simple', source: { uri: `udp://127.0.0.1:${port}` }, output: { uri: outputUri } });
  expect(r.status, r.text).toBe(201);
  // A second of frames in real time, so the clock recovery has its estimate before the stall.
  await waitFor(async () => (await frames(id)) >= FRAME.fps, 15000);
  return sender;
}

/** The frames of the stall, and three seconds after the burst, past the estimate's convergence (about 2 s). */
const FRAMES_FROM_STALL = Math.round((STALL_MS / 1000) * FRAME.fps) + 3 * FRAME.fps;

async function remove(id: string, sender: BurstSender): Promise<void> {
  expect((await svc.api('PUT', `/svc/pipeline/${id}/stop`)).status).toBe(200);
  sender.stop();
  expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
}

// ffmpeg is the judge at the stream's own time base (-enc_time_base -1): by default its null output counts in frame
// periods (1/15 s), where the burst's frames, 1 ms apart, fall on one tick and are reported as "non monotonically
// increasing dts" although the stream's DTS increase (docs/dataplane.md, receiver matrix, item 5).
describe('a passed-through UDP MPEG-TS source that stalls 1.5 s and then bursts', () => {
  for (const [codec, ext] of [['h265', 'mkv'], ['h264', 'ts']] as const) {
    it(`${codec} into .${ext}: the recording's DTS strictly increase and ffmpeg reads it clean`, async () => {
      const id = `burst-${codec}-${ext}`;
      const path = join(dir, `burst-${codec}.${ext}`);
      const sender = await relay(id, codec, path);
      sender.stall(STALL_MS);
      const after = (await frames(id)) + FRAMES_FROM_STALL;
      await waitFor(async () => (await frames(id)) >= after, 15000);
      await remove(id, sender);

      const stamps = await stampsOf(path);
      expect(stamps.length).toBeGreaterThanOrEqual(after - 5);
      const bad = stamps.slice(1).flatMap((p, i) => (p.dts <= stamps[i].dts || p.pts < p.dts ? [`${JSON.stringify(stamps[i])} → ${JSON.stringify(p)}`] : []));
      expect(bad, `DTS not increasing or PTS before DTS at ${bad.length} of ${stamps.length} packets`).toEqual([]);
      const verdict = await ffmpegErrors(['-i', path, '-enc_time_base', '-1']);
      expect(verdict.decoded, verdict.log).toBe(stamps.length);
      expect(verdict.keyframes, verdict.log).toBeGreaterThanOrEqual(3);
      expect(verdict.errors, verdict.log).toEqual([]);
    });
  }

  it('h265 into a local RTSP output: ffmpeg over TCP decodes the stall, the burst and after it clean', async () => {
    const id = 'burst-h265-rtsp';
    const port = await freePort();
    const sender = await relay(id, 'h265', `rtsp://0.0.0.0:${port}/burst`);
    // The matrix's judge, which counts from the first keyframe: a reader joins the shared media mid-GOP.
    const reader = ffmpegJudge(['-rtsp_transport', 'tcp', '-i', `rtsp://127.0.0.1:${port}/burst`, '-enc_time_base', '-1'], FRAMES_FROM_STALL, 2, 30000, FRAMES_FROM_STALL);
    // The stall once the reader plays: what it reads then spans the stall, the burst and the recovery's pull-back.
    await waitFor(async () => ((await svc.api('GET', `/svc/pipeline/${id}`)).body.stats?.rtsp_clients ?? 0) >= 1, 15000);
    sender.stall(STALL_MS);
    const verdict = await reader;
    await remove(id, sender);
    expect(verdict.reason, verdict.log).toBeUndefined();
  });
});
