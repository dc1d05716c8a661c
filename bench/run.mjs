/**
 * Runs every benchmark (one script per question, one after the other: each wants the machine to itself),
 * collects the JSON result lines they print, writes bench/results/latest.json and prints a table.
 * `node bench/run.mjs [name ...]` runs only the named ones. Needs the compiled dist/ (`npm run bench` builds it).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './lib/proc.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const BENCHMARKS = ['control-plane', 'start-latency', 'dataplane-cpu', 'memory', 'live-patch', 'density', 'sse-fanout'];
// A hung benchmark must not hold the whole run.
const TIMEOUT_MS = 6 * 60 * 1000;

/** The 1-minute load average: this machine is shared, and a busy one skews every figure. */
const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

function runOne(name) {
  return new Promise((resolve) => {
    const started = performance.now();
    const loadBefore = load();
    // It lags a minute, so it still carries the previous benchmark's own load; well above ~2, someone else is busy.
    process.stdout.write(`  (load average ${loadBefore})\n`);
    const child = spawn(process.execPath, [join(HERE, `${name}.mjs`)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const results = [];
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => {
      out += d;
      let i;
      while ((i = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, i);
        out = out.slice(i + 1);
        try {
          const r = JSON.parse(line);
          if (r.type === 'result') results.push(r);
        } catch {
          process.stdout.write(`  ${line}\n`);
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => process.stdout.write(d.replace(/^(?=.)/gm, `  [${name}] `)));
    const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 1000);
      if (!results.length) results.push({ bench: name, pass: false, error: `ended (${code ?? signal}) without a result` });
      resolve(results.map((r) => ({ ...r, seconds, load_before: loadBefore, load_after: load() })));
    });
  });
}

function table(rows) {
  const head = ['benchmark', 'figure', 'goal', 'met', 's'];
  const body = rows.map((r) => [r.bench, r.figure ?? r.reason ?? r.error?.split('\n')[0] ?? '', r.goal ?? '', r.pass === true ? 'yes' : r.pass === false ? 'NO' : 'n/a', String(r.seconds)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !BENCHMARKS.includes(w));
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}\n`);
  process.exit(2);
}
if (!existsSync(join(HERE, '../dist/core/main.js'))) {
  process.stderr.write('dist/ is missing: run `npm run bench` (or `npx tsc -p tsconfig.json`) first\n');
  process.exit(2);
}

const started = new Date();
const t0 = performance.now();
const results = [];
for (const name of wanted.length ? wanted : BENCHMARKS) {
  process.stdout.write(`\n== ${name}\n`);
  results.push(...await runOne(name));
}
const summary = {
  started_at: started.toISOString(),
  total_seconds: Math.round((performance.now() - t0) / 1000),
  machine: machine(),
  results,
};
mkdirSync(join(HERE, 'results'), { recursive: true });
writeFileSync(join(HERE, 'results/latest.json'), `${JSON.stringify(summary, null, 2)}\n`);
const m = summary.machine;
process.stdout.write(`\n${m.nproc} × ${m.cpu}, ${m.memory_gb} GB, ${m.gstreamer}, Node ${m.node}; ${summary.total_seconds} s in all\n\n`);
process.stdout.write(`${table(results)}\n\nwritten to bench/results/latest.json\n`);
// A missed goal is a finding, not a failure of the run; a benchmark that broke is.
process.exitCode = results.some((r) => r.error) ? 1 : 0;
