/**
 * Question 6, density: how many 640×360@30 H.264 pipelines (test://ball, default quality) run at once without
 * dropped frames — encoderd against the same count of gst-launch-1.0 processes. Goal ≥ 0.9×.
 *
 * "Without dropped frames", measured on the received streams: over a 4 s window every pipeline's UDP output
 * delivers 29–31 frames/s (below: falling behind; above: catching up on a backlog) and its video PTS have no
 * gap. The count grows 4, 8, 16, then by 8, until a count fails, then is bisected between the last count that
 * held and the first that did not (down to 1 if 4 fails); each trial of the bisection starts its set from none
 * (not what an overloaded trial left running, with its backlog). Steps of 8 past 16: starting many engines at once on
 * an already full machine takes long and says little. The two
 * sides run one after the other (they would compete for the 2 cores), each with a time budget, and each trial
 * with a time limit; a side that runs out of budget reports the largest count it proved.
 */
import { descriptions, gstLaunch } from './lib/gst.mjs';
import { atEnd, main, note, report } from './lib/report.mjs';
import { h264Body, startService } from './lib/service.mjs';
import { round, sleep } from './lib/stats.mjs';
import { lostByPts, tsReceiver } from './lib/ts-receiver.mjs';

const BENCH = 'density';
const QUESTION = 'concurrent 640×360@30 H.264 pipelines without dropped frames vs gst-launch-1.0';
const FPS = 30;
const MIN_FPS = 29;
// Above this a stream is draining a backlog from an overloaded moment: not steady either.
const MAX_FPS = 31;
const SETTLE_S = 2;
const WINDOW_S = 4;
const MAX_N = Number(process.env.BENCH_DENSITY_MAX ?? 64);
const FIRST_N = 4;
const SIDE_BUDGET_S = Number(process.env.BENCH_DENSITY_BUDGET_S ?? 110);
const TRIAL_LIMIT_MS = 45000;
const ENCODING = { width: 640, height: 360, fps: FPS };

/** Measures the running set: every stream must keep MIN_FPS..MAX_FPS with no PTS gap over the window. */
async function measure(receivers, settleS) {
  await sleep(settleS * 1000);
  const t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const t1 = performance.now();
  const per = receivers.map((rx) => {
    const frames = rx.framesBetween(t0, t1);
    return { fps: frames.length / ((t1 - t0) / 1000), lost: lostByPts(frames, FPS).lost };
  });
  const worst = per.reduce((a, b) => (Math.abs(b.fps - FPS) > Math.abs(a.fps - FPS) ? b : a), { fps: FPS, lost: 0 });
  const ok = per.every((p) => p.fps >= MIN_FPS && p.fps <= MAX_FPS && p.lost === 0);
  return { ok, furthestFps: round(worst.fps, 1), lost: per.reduce((s, p) => s + p.lost, 0) };
}

/** Grows then bisects the count; `resize(n)` brings the running set to n and returns their receivers. */
async function search(name, resize) {
  const started = performance.now();
  const trials = [];
  let good = 0;
  let bad = null;
  let n = FIRST_N;
  let bounded = null;
  let trial = null;
  while (n !== null) {
    if ((performance.now() - started) / 1000 > SIDE_BUDGET_S) {
      bounded = `time budget of ${SIDE_BUDGET_S} s spent`;
      break;
    }
    let result;
    const t0 = performance.now();
    let timer;
    try {
      trial = (async () => {
        // Once a count has failed, every later trial starts from none: survivors of an overloaded set carry a
        // backlog that drains only as fast as the spare capacity allows, which near the limit is slower than any
        // settle time, so the trial measured the last overload rather than the count (both sides alike).
        if (bad !== null) await resize(0);
        const receivers = await resize(n);
        // A set started at once after an overloaded trial needs longer to settle.
        return measure(receivers, bad === null ? SETTLE_S : SETTLE_S + 3);
      })();
      const limit = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`trial took over ${TRIAL_LIMIT_MS / 1000} s`)), TRIAL_LIMIT_MS); });
      result = await Promise.race([trial, limit]);
    } catch (err) {
      result = { ok: false, error: String(err.message ?? err).slice(0, 300) };
    } finally {
      clearTimeout(timer);
    }
    if (result.error?.startsWith('trial took over')) {
      // The set is in an unknown state (creations may still be under way): no further count can be trusted.
      trials.push({ n, ...result });
      note(`${name}: ${n} pipelines → ${result.error}; search ends here`);
      bad = bad === null ? n : Math.min(bad, n);
      bounded = result.error;
      break;
    }
    const seconds = round((performance.now() - t0) / 1000, 0);
    trials.push({ n, ...result, seconds });
    note(`${name}: ${n} pipelines → ${result.ok ? 'held' : 'dropped'} (furthest from 30: ${result.furthestFps ?? '-'} fps${result.error ? `, ${result.error}` : ''}; ${seconds} s)`);
    if (result.ok) good = Math.max(good, n);
    else bad = bad === null ? n : Math.min(bad, n);
    if (bad === null) n = n >= MAX_N ? null : Math.min(MAX_N, n < 16 ? n * 2 : n + 8);
    else n = bad - good > 1 ? Math.floor((good + bad) / 2) : null;
    if (bad === null && n === null) bounded = `cap of ${MAX_N} pipelines reached`;
  }
  await trial?.catch(() => undefined);
  await resize(0);
  return { max: good, first_failing: bad, trials, bounded, seconds: round((performance.now() - started) / 1000, 0) };
}

await main(BENCH, QUESTION, async () => {
  // gst-launch-1.0 side.
  const gstRunning = [];
  const gstSide = await search('gst-launch-1.0', async (n) => {
    while (gstRunning.length > n) {
      const going = gstRunning.splice(Math.max(n, gstRunning.length - 8));
      await Promise.all(going.map(async ({ proc, rx }) => {
        await proc.stop();
        rx.close();
      }));
    }
    while (gstRunning.length < n) {
      const rx = await tsReceiver();
      const proc = gstLaunch(descriptions(h264Body(`d${gstRunning.length}`, `udp://127.0.0.1:${rx.port}`, ENCODING)).baseline);
      gstRunning.push({ proc, rx });
    }
    return gstRunning.map((r) => r.rx);
  });

  // encoderd side.
  const svc = await startService();
  const encRunning = [];
  atEnd(() => encRunning.forEach((r) => r.rx.close()));
  const encSide = await search('encoderd', async (n) => {
    while (encRunning.length > n) {
      const going = encRunning.splice(Math.max(n, encRunning.length - 8));
      await Promise.all(going.map(async ({ id, rx }) => {
        await svc.api('PUT', `/svc/pipeline/${id}/stop`);
        await svc.api('DELETE', `/svc/pipeline/${id}`);
        rx.close();
      }));
    }
    const adding = [];
    while (encRunning.length + adding.length < n) {
      const rx = await tsReceiver();
      adding.push({ id: `d${encRunning.length + adding.length}`, rx });
    }
    // Created a few at a time, as an operator's script would; all must answer 201.
    for (let i = 0; i < adding.length; i += 8) {
      const batch = adding.slice(i, i + 8);
      const answers = await Promise.all(batch.map((a) => svc.api('POST', '/svc/pipeline', h264Body(a.id, `udp://127.0.0.1:${a.rx.port}`, ENCODING))));
      batch.forEach((a) => encRunning.push(a));
      const failed = answers.find((r) => r.status !== 201);
      if (failed) throw new Error(`POST answered ${failed.status}: ${failed.text}`);
    }
    return encRunning.map((r) => r.rx);
  });

  if (!gstSide.max) throw new Error(`not even one gst-launch-1.0 pipeline held: ${JSON.stringify(gstSide.trials)}`);
  const ratio = encSide.max / gstSide.max;
  report({
    bench: BENCH,
    question: QUESTION,
    baseline_removed: descriptions(h264Body('d', 'udp://127.0.0.1:5000', ENCODING)).removed,
    criterion: `every stream ${MIN_FPS}–${MAX_FPS} frames/s over ${WINDOW_S} s and no PTS gap`,
    encoderd: encSide,
    baseline: gstSide,
    ratio: round(ratio),
    figure: `${round(ratio)}× (${encSide.max} vs ${gstSide.max} pipelines)${encSide.bounded || gstSide.bounded ? ' (bounded)' : ''}`,
    goal: '≥ 0.9×',
    pass: ratio >= 0.9,
  });
});
