/**
 * Question 2, time from POST (on_demand=false) to playing, against gst-launch-1.0 of the same description
 * reaching PLAYING. Goal ≤ 1.3×.
 *
 * encoderd: the POST's round trip (it answers 201 once the pipeline plays; a fresh engine host is forked for
 * it). gst-launch: from spawn to the pipeline's PAUSED → PLAYING message (-m). Both also: to the first video
 * frame received from the UDP output. And, to show what the fork costs, PUT play of the same pipeline once
 * stopped (its host is kept). Rounds alternate encoderd and gst-launch; medians are compared.
 */
import { descriptions, gstLaunch } from './lib/gst.mjs';
import { atEnd, main, note, report } from './lib/report.mjs';
import { expectStatus, h264Body, startService } from './lib/service.mjs';
import { median, round, sleep } from './lib/stats.mjs';
import { tsReceiver } from './lib/ts-receiver.mjs';

const BENCH = 'start-latency';
const QUESTION = 'POST (on_demand=false) → playing vs gst-launch-1.0 → PLAYING';
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? 5);

async function firstFrameAfter(rx, t0, timeoutMs = 5000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const f = rx.frames.find((x) => x.at >= t0);
    if (f) return f.at - t0;
    if (performance.now() > deadline) return NaN;
    await sleep(5);
  }
}

await main(BENCH, QUESTION, async () => {
  const svc = await startService();
  const rx = await tsReceiver();
  atEnd(() => rx.close());
  const output = `udp://127.0.0.1:${rx.port}`;
  const described = descriptions(h264Body('sl', output));
  const description = described.baseline;
  const enc = { post: [], postFrame: [], play: [] };
  const gst = { playing: [], frame: [] };

  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? ['encoderd', 'gst'] : ['gst', 'encoderd'];
    for (const side of order) {
      if (side === 'encoderd') {
        const id = `sl-${i}`;
        const t0 = performance.now();
        const r = await svc.api('POST', '/svc/pipeline', h264Body(id, output));
        enc.post.push(performance.now() - t0);
        if (expectStatus(r, 201, `POST ${id}`).state !== 'playing') throw new Error(`${id} answered 201 but is ${r.body.state}`);
        enc.postFrame.push(await firstFrameAfter(rx, t0));
        await sleep(300);
        expectStatus(await svc.api('PUT', `/svc/pipeline/${id}/stop`), 200, `PUT ${id}/stop`);
        await sleep(300);
        const t1 = performance.now();
        expectStatus(await svc.api('PUT', `/svc/pipeline/${id}/play`), 200, `PUT ${id}/play`);
        enc.play.push(performance.now() - t1);
        await sleep(300);
        expectStatus(await svc.api('PUT', `/svc/pipeline/${id}/stop`), 200, `PUT ${id}/stop`);
        expectStatus(await svc.api('DELETE', `/svc/pipeline/${id}`), 204, `DELETE ${id}`);
      } else {
        const t0 = performance.now();
        const g = gstLaunch(description, { messages: true });
        gst.playing.push(await g.playing);
        gst.frame.push(await firstFrameAfter(rx, t0));
        await sleep(300);
        await g.stop();
      }
      await sleep(300);
    }
    note(`round ${i + 1}/${ROUNDS}: POST ${round(enc.post.at(-1), 0)} ms, gst-launch PLAYING ${round(gst.playing.at(-1), 0)} ms`);
  }

  const m = (xs) => round(median(xs), 1);
  const ratio = median(enc.post) / median(gst.playing);
  report({
    bench: BENCH,
    question: QUESTION,
    rounds: ROUNDS,
    description: described.encoderd,
    baseline_removed: described.removed,
    encoderd: {
      post_to_201_ms: m(enc.post), post_to_first_frame_ms: m(enc.postFrame), play_existing_host_ms: m(enc.play),
      samples: { post: enc.post.map((x) => round(x, 0)), play: enc.play.map((x) => round(x, 0)) },
    },
    baseline: { spawn_to_playing_ms: m(gst.playing), spawn_to_first_frame_ms: m(gst.frame), samples: gst.playing.map((x) => round(x, 0)) },
    ratio: round(ratio),
    figure: `${round(ratio)}× (${m(enc.post)} vs ${m(gst.playing)} ms, medians); PUT play with its host up ${m(enc.play)} ms`,
    goal: '≤ 1.3×',
    pass: ratio <= 1.3,
  });
});
