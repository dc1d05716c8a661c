/**
 * Question 7, SSE fan-out: 200 subscribers on one pipeline's status stream (real HTTPS connections, auth on,
 * each with the token), one state change (PUT stop) → p99 delivery < 50 ms, measured from just before the PUT
 * to each client's receipt of the `pipeline_status` event saying `ready`. The change is made ROUNDS times (a
 * PUT play, unmeasured, in between) and the deliveries pooled. Reported beside it: the PUT's own
 * round trip (the stop itself) and the spread from the first client's receipt, which is the fan-out proper.
 * The clients live in this process, so their clock is the PUT's clock.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { main, note, report } from './lib/report.mjs';
import { expectStatus, h264Body, startService } from './lib/service.mjs';
import { median, percentile, round, sleep } from './lib/stats.mjs';
import { tsReceiver } from './lib/ts-receiver.mjs';

const BENCH = 'sse-fanout';
const QUESTION = '200 SSE subscribers, one state change: p99 delivery';
const SUBSCRIBERS = 200;
// Several state changes, pooled: one alone is at the mercy of whatever else the machine does at that moment.
const ROUNDS = Number(process.env.BENCH_SSE_ROUNDS ?? 5);

/**
 * An SSE subscriber. `next(state)` resolves with the receipt time (performance.now()) of the next
 * pipeline_status event in that state after the call.
 */
function subscribe(port, path, token, agent) {
  return new Promise((resolveOpen, rejectOpen) => {
    let waiters = [];
    const req = httpsRequest({ host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        rejectOpen(new Error(`SSE answered ${res.statusCode}`));
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const at = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event !== 'pipeline_status' || !data) continue;
          const state = JSON.parse(data).state;
          const due = waiters.filter((w) => w.state === state);
          waiters = waiters.filter((w) => w.state !== state);
          for (const w of due) w.resolve(at);
        }
      });
      resolveOpen({
        next: (state) => new Promise((resolve) => waiters.push({ state, resolve })),
        close: () => req.destroy(),
      });
    });
    req.on('error', rejectOpen);
    req.end();
  });
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(what)), ms); })]).finally(() => clearTimeout(timer));
}

await main(BENCH, QUESTION, async () => {
  const svc = await startService();
  const token = await svc.enableAuth();
  const rx = await tsReceiver();
  expectStatus(await svc.api('POST', '/svc/pipeline', h264Body('fan', `udp://127.0.0.1:${rx.port}`, { width: 320, height: 240 })), 201, 'POST fan');
  // One connection per subscriber, as 200 browsers would have.
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity, rejectUnauthorized: false });
  const clients = [];
  for (let i = 0; i < SUBSCRIBERS; i += 20) {
    clients.push(...await Promise.all(Array.from({ length: 20 }, () => subscribe(svc.port, '/svc/pipeline/fan/status/events', token, agent))));
  }
  note(`${clients.length} subscribers connected`);

  const delivery = [];
  const spread = [];
  const puts = [];
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    if (round_ > 0) {
      const playing = Promise.all(clients.map((c) => c.next('playing')));
      expectStatus(await svc.api('PUT', '/svc/pipeline/fan/play'), 200, 'PUT fan/play');
      await withTimeout(playing, 10000, 'not every subscriber heard the pipeline play');
    }
    await sleep(1000);
    const ready = Promise.all(clients.map((c) => c.next('ready')));
    const t0 = performance.now();
    const res = await svc.api('PUT', '/svc/pipeline/fan/stop');
    puts.push(performance.now() - t0);
    expectStatus(res, 200, 'PUT fan/stop');
    const arrivals = await withTimeout(ready, 10000, 'not every subscriber received the state change within 10 s');
    const d = arrivals.map((at) => at - t0);
    const first = Math.min(...d);
    delivery.push(...d);
    spread.push(...d.map((x) => x - first));
    note(`round ${round_ + 1}/${ROUNDS}: p99 ${round(percentile(d, 99), 1)} ms, PUT ${round(puts.at(-1), 1)} ms`);
  }
  clients.forEach((c) => c.close());
  rx.close();
  const p99 = percentile(delivery, 99);
  report({
    bench: BENCH,
    question: QUESTION,
    subscribers: clients.length,
    auth: true,
    encoderd: {
      p50_ms: round(percentile(delivery, 50), 1), p99_ms: round(p99, 1), max_ms: round(Math.max(...delivery), 1),
      put_stop_round_trip_median_ms: round(median(puts), 1), fanout_spread_p99_ms: round(percentile(spread, 99), 1),
    },
    rounds: ROUNDS,
    samples: delivery.length,
    figure: `p99 ${round(p99, 1)} ms over ${ROUNDS} changes (spread after the first receipt p99 ${round(percentile(spread, 99), 1)} ms; PUT stop median ${round(median(puts), 1)} ms)`,
    goal: 'p99 < 50 ms',
    pass: p99 < 50,
  });
});
