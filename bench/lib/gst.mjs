/**
 * The baseline side: the description encoderd would run for a body, composed by the same compiled code
 * (validator → compose, built-in plugin registry), run under gst-launch-1.0.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { atEnd } from './report.mjs';

const require = createRequire(import.meta.url);
const { PluginRegistry } = require('../../dist/core/plugins/registry.js');
const { builtinPlugins } = require('../../dist/plugins/index.js');
const { PipelineValidator } = require('../../dist/core/pipeline/validate.js');
const { composePipeline } = require('../../dist/core/compose/index.js');

let registry;
function plugins() {
  if (!registry) {
    registry = new PluginRegistry();
    for (const p of builtinPlugins) registry.register(p, 'builtin');
  }
  return registry;
}

/** The GStreamer description encoderd runs for this pipeline body (the settings' default RTSP latency). */
export function describe(body) {
  const def = new PipelineValidator(plugins()).definition(structuredClone(body));
  return composePipeline(def, plugins(), { rtspLatencyMs: 200 });
}

/**
 * What gst-launch-1.0 can run of encoderd's description. Everything but one branch is kept, the inert framegrab
 * branch included: the KLV input of an MPEG-TS output is an appsrc the engine host feeds (10 Hz ST 0601), and
 * 1.22's mpegtsmux releases no video until that input has data, so under gst-launch, which feeds no appsrc, the
 * output would never flow. That branch (appsrc … ! mux.) is cut; `removed` says what went.
 */
export function baselineOf(composed) {
  const tokens = launchArgv(composed.description);
  const removed = [];
  if (composed.klvInjector) {
    const start = tokens.findIndex((t, i) => t === 'appsrc' && tokens[i + 1] === `name="${composed.klvInjector}"`);
    // The branch ends at the first pad reference (`mux.`) after the appsrc.
    const end = tokens.findIndex((t, i) => i > start && /^[A-Za-z_][\w-]*\.$/.test(t));
    if (start < 0 || end < 0) throw new Error(`cannot find the KLV input "${composed.klvInjector}" in: ${composed.description}`);
    removed.push(tokens.splice(start, end - start + 1).join(' '));
  }
  const description = tokens.join(' ');
  if (/\bappsrc\b/.test(description)) throw new Error(`an appsrc gst-launch-1.0 cannot feed is left in: ${description}`);
  return { description, removed };
}

/** encoderd's description for body and the baseline's (see baselineOf). */
export function descriptions(body) {
  const composed = describe(body);
  const baseline = baselineOf(composed);
  return { encoderd: composed.description, baseline: baseline.description, removed: baseline.removed };
}

/**
 * gst-launch-1.0 escapes the spaces of each argument (gst_parse_launchv), so a description given as one argument
 * does not parse. Split it where a shell would: at spaces outside double quotes, keeping the quotes, so that
 * gst-launch joins back exactly the text encoderd hands to gst_parse_launch.
 */
export function launchArgv(description) {
  const out = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < description.length; i++) {
    const c = description[i];
    if (c === '\\' && i + 1 < description.length) {
      cur += c + description[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ' ' && !quoted) {
      if (cur) out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

/**
 * Starts gst-launch-1.0 -e on the description. With `messages`, gst-launch prints every bus message (-m) and
 * `playing` resolves when the pipeline's own PAUSED → PLAYING state-changed message arrives: the moment the
 * addon's setState('playing') also waits for. Ended with SIGINT (EOS first, as -e asks) when the benchmark ends.
 */
export function gstLaunch(description, { messages = false } = {}) {
  const t0 = performance.now();
  const child = spawn('gst-launch-1.0', ['-e', ...(messages ? ['-m'] : []), ...launchArgv(description)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GST_DEBUG: process.env.GST_DEBUG ?? '0' },
  });
  let out = '';
  let resolvePlaying;
  let rejectPlaying;
  const playing = new Promise((res, rej) => {
    resolvePlaying = res;
    rejectPlaying = rej;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => {
    rejectPlaying(new Error(`gst-launch-1.0 ended (${code ?? signal}) before PLAYING:\n${out.slice(-2000)}`));
    resolve(code);
  }));
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    pending += d;
    let i;
    while ((i = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (out.length < 100000) out += `${line}\n`;
      if (/from element "pipeline0" \(state-changed\).*new-state=\(GstState\)playing/.test(line)) resolvePlaying(performance.now() - t0);
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => {
    if (out.length < 100000) out += d;
  });
  const proc = {
    pid: child.pid,
    /** Milliseconds from spawn to PLAYING (needs `messages`). */
    playing,
    output: () => out,
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (!proc.alive()) return;
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  playing.catch(() => undefined);
  if (messages) {
    const limit = setTimeout(() => rejectPlaying(new Error(`gst-launch-1.0 did not reach PLAYING in 20 s:\n${out.slice(-2000)}`)), 20000);
    playing.finally(() => clearTimeout(limit)).catch(() => undefined);
  }
  atEnd(() => proc.stop());
  return proc;
}
