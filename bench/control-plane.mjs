/**
 * Question 1, control-plane throughput: GET /svc/pipeline with 50 pipelines defined (stopped), auth on, over
 * HTTPS, against a bare Fastify HTTPS route returning the same JSON. Goal: ≥ 0.8× its requests/s; p99 reported.
 * Load from autocannon in this process; each server in its own process; the two measured one after the other.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atEnd, main, note, report } from './lib/report.mjs';
import { expectStatus, h264Body, startService } from './lib/service.mjs';
import { round } from './lib/stats.mjs';
import { tsReceiver } from './lib/ts-receiver.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const BENCH = 'control-plane';
const QUESTION = 'GET /svc/pipeline, 50 pipelines, auth on, HTTPS vs bare Fastify';
const PIPELINES = 50;
const CONNECTIONS = 10;
const WARMUP_S = 2;
const DURATION_S = Number(process.env.BENCH_CONTROL_SECONDS ?? 8);
// Creating 50 pipelines forks 50 engine hosts; a few at a time keeps the 2-core machine responsive.
const CREATE_BATCH = 5;

async function cannon(opts) {
  const run = autocannon(opts);
  let firstError;
  run.on('reqError', (err) => { firstError ??= err; });
  const r = await run;
  if (r.errors || r.non2xx) throw new Error(`${opts.url}: ${r.errors} errors (first: ${firstError?.message}), ${r.non2xx} non-2xx answers`);
  return r;
}

async function load(url, headers) {
  await cannon({ url, connections: CONNECTIONS, duration: WARMUP_S, headers });
  const r = await cannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  return { rps: r.requests.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99, requests: r.requests.total };
}

function startBare(svc, bodyFile) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./lib/bare-fastify.mjs', import.meta.url)),
    join(svc.dataDir, 'tls/cert.pem'), join(svc.dataDir, 'tls/key.pem'), bodyFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  atEnd(() => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`bare Fastify exited (${code})`)));
  });
}

await main(BENCH, QUESTION, async () => {
  const svc = await startService();
  const token = await svc.enableAuth();
  // The outputs go to a receiver nobody reads: the pipelines only need distinct, valid destinations.
  const sink = await tsReceiver();
  atEnd(() => sink.close());
  note(`creating ${PIPELINES} pipelines (each starts, then is stopped)`);
  const t0 = performance.now();
  for (let i = 0; i < PIPELINES; i += CREATE_BATCH) {
    await Promise.all(Array.from({ length: Math.min(CREATE_BATCH, PIPELINES - i) }, async (_, k) => {
      const id = `cp-${i + k}`;
      expectStatus(await svc.api('POST', '/svc/pipeline', h264Body(id, `udp://127.0.0.1:${sink.port + 1 + i + k}`, { width: 320, height: 240 })), 201, `POST ${id}`);
      expectStatus(await svc.api('PUT', `/svc/pipeline/${id}/stop`), 200, `PUT ${id}/stop`);
    }));
  }
  note(`created in ${round((performance.now() - t0) / 1000, 1)} s`);
  const list = await svc.api('GET', '/svc/pipeline');
  const pipelines = expectStatus(list, 200, 'GET /svc/pipeline');
  if (pipelines.length !== PIPELINES || pipelines.some((p) => p.state !== 'ready')) throw new Error('expected 50 ready pipelines');
  const bodyFile = join(svc.dataDir, 'bench-body.json');
  writeFileSync(bodyFile, list.text);
  const barePort = await startBare(svc, bodyFile);

  note(`bare Fastify: ${WARMUP_S} s warm-up + ${DURATION_S} s`);
  const bare = await load(`https://127.0.0.1:${barePort}/svc/pipeline`, {});
  note(`encoderd: ${WARMUP_S} s warm-up + ${DURATION_S} s`);
  const enc = await load(`https://127.0.0.1:${svc.port}/svc/pipeline`, { authorization: `Bearer ${token}` });
  const ratio = enc.rps / bare.rps;
  report({
    bench: BENCH,
    question: QUESTION,
    encoderd: { ...enc, auth: true },
    baseline: { ...bare, auth: false },
    body_bytes: Buffer.byteLength(list.text),
    connections: CONNECTIONS,
    duration_s: DURATION_S,
    ratio: round(ratio),
    figure: `${round(ratio)}× (${Math.round(enc.rps)} vs ${Math.round(bare.rps)} req/s); p99 ${enc.p99_ms} vs ${bare.p99_ms} ms`,
    goal: '≥ 0.8× req/s; p99 reported',
    pass: ratio >= 0.8,
  });
});
