/**
 * Question 5, live encoding patches, judged from the received stream (UDP MPEG-TS into this process), never
 * from logs. Goals: a bitrate patch loses 0 frames; a width/height patch interrupts the output < 500 ms.
 *
 * The source is test://snow so that x264 spends the whole bitrate and the bitrate change shows in the bytes
 * received. Lost frames: gaps in the video PTS (30 fps: 3000 ticks of 90 kHz) from 2 s before the patch to 3 s
 * after. Interruption: the largest gap between consecutive video frames' arrivals around the width/height
 * patch (the pipeline is rebuilt, so its PTS start again), next to the largest gap in steady running. The new
 * resolution is checked with ffprobe on the stream received after the patch.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { atEnd, main, note, report } from './lib/report.mjs';
import { expectStatus, h264Body, startService } from './lib/service.mjs';
import { round, sleep } from './lib/stats.mjs';
import { largestArrivalGap, lostByPts, tsReceiver } from './lib/ts-receiver.mjs';

const BENCH = 'live-patch';
const QUESTION = 'live bitrate patch (frames lost) and width/height patch (interruption)';
const FPS = 30;

function kbps(frames) {
  if (frames.length < 2) return NaN;
  return ((frames.at(-1).bytes - frames[0].bytes) * 8) / (frames.at(-1).at - frames[0].at);
}

function probeSize(file) {
  try {
    const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file],
      { encoding: 'utf8' });
    const [w, h] = out.trim().split('\n')[0].split(',').map(Number);
    return { width: w, height: h };
  } catch (err) {
    return { error: String(err.message ?? err) };
  }
}

await main(BENCH, QUESTION, async () => {
  const svc = await startService();
  const rx = await tsReceiver();
  atEnd(() => rx.close());
  const body = { ...h264Body('lp', `udp://127.0.0.1:${rx.port}`, { width: 640, height: 360, bitrate: 800 }), source: { uri: 'test://snow' } };
  expectStatus(await svc.api('POST', '/svc/pipeline', body), 201, 'POST lp');
  await sleep(3000);

  // Bitrate: 800 → 1600 kbps, live.
  const before = rx.framesBetween(performance.now() - 2000, performance.now());
  const tb = performance.now();
  const rb = await svc.api('PATCH', '/svc/pipeline/lp', { encoding: { bitrate: 1600 } });
  const bitratePatchMs = performance.now() - tb;
  expectStatus(rb, 200, 'PATCH bitrate');
  await sleep(3000);
  const around = rx.framesBetween(tb - 2000, tb + 3000);
  const after = rx.framesBetween(tb + 1000, tb + 3000);
  const loss = lostByPts(around, FPS);
  const expected = Math.round(((around.at(-1).pts - around[0].pts) / 90000) * FPS) + 1;
  const bitrateGap = largestArrivalGap(around);
  note(`bitrate patch: ${around.length} frames received of ${expected} by PTS, ${loss.lost} lost`);

  // Width/height: 640×360 → 1280×720, a rebuild of the pipeline.
  const steady = largestArrivalGap(rx.framesBetween(tb + 500, performance.now()));
  const tr = performance.now();
  const stopRecording = rx.record();
  const rr = await svc.api('PATCH', '/svc/pipeline/lp', { encoding: { width: 1280, height: 720 } });
  const resizePatchMs = performance.now() - tr;
  expectStatus(rr, 200, 'PATCH width/height');
  await sleep(3000);
  const recorded = stopRecording();
  const file = join(svc.dataDir, 'after-resize.ts');
  writeFileSync(file, recorded);
  const size = probeSize(file);
  const resizeWindow = rx.framesBetween(tr - 1000, performance.now());
  const interruption = largestArrivalGap(resizeWindow);
  const framesAfterResize = rx.framesBetween(tr + resizePatchMs + 1000, performance.now());
  note(`resize patch: largest arrival gap ${round(interruption.gapMs, 0)} ms (steady ${round(steady.gapMs, 0)} ms), output now ${JSON.stringify(size)}`);

  const pass = loss.lost === 0 && around.length === expected && interruption.gapMs < 500 && size.width === 1280 && size.height === 720;
  report({
    bench: BENCH,
    question: QUESTION,
    bitrate_patch: {
      patch_ms: round(bitratePatchMs, 1),
      frames_received: around.length,
      frames_expected_by_pts: expected,
      frames_lost: loss.lost,
      largest_pts_gap_ms: round(loss.largestGapMs, 1),
      largest_arrival_gap_ms: round(bitrateGap.gapMs, 1),
      kbps_before: round(kbps(before), 0),
      kbps_after: round(kbps(after), 0),
    },
    resize_patch: {
      patch_ms: round(resizePatchMs, 1),
      interruption_ms: round(interruption.gapMs, 1),
      steady_largest_gap_ms: round(steady.gapMs, 1),
      output_after: size,
      fps_after: round(framesAfterResize.length / ((performance.now() - (tr + resizePatchMs + 1000)) / 1000), 1),
    },
    figure: `bitrate: ${loss.lost} lost of ${expected} (${round(kbps(before), 0)} → ${round(kbps(after), 0)} kbit/s); width/height: ${round(interruption.gapMs, 0)} ms gap`,
    goal: '0 lost; width/height interruption < 500 ms',
    pass,
  });
});
