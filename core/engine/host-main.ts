/**
 * The engine host: a child process that runs exactly one pipeline (and its RTSP server) through the addon,
 * so that an encoder abort or a hung state change takes down only this process. Commands arrive over IPC,
 * one at a time; bus messages go back as events. When the core goes away the host goes too.
 */
import type { BusMessage, Pipeline } from '../../native';
import type { HostService } from '../sdk';
import { KlvPacer } from '../klv/pacer';
import { StatsSampler } from './host-stats';
import { measureServices, SERVICES, type RunningService } from './services';
import { loadNative } from './native';
import type { HostCommand, HostErrorBody, HostEvent, HostRequest } from './protocol';
import { transportError, type SideTransport } from './transports';

const native = loadNative();
let pipeline: Pipeline | null = null;
/** The services running beside the pipeline (core/engine/services/), by the play command's order. */
let services: RunningService[] = [];
let lastError: string | null = null;
let eosWaiter: (() => void) | null = null;
/** Pipelines running beside the main one (a looped file's reader), each rebuilt at its end-of-stream. */
let companions: Pipeline[] = [];
/** Keeps the output's KLV input fed while the pipeline runs (core/klv/pacer.ts). */
let klvPacer: KlvPacer | null = null;
/** The watched appsink whose samples (the source's KLV) the pacer relays. */
let klvRelay: string | null = null;
/** For each companion, the appsinks in it that are watched (set again at each of its rebuilds). */
let companionSinks: string[][] = [];
/** Measures the running pipeline once a second (core/engine/host-stats.ts). */
let sampler: StatsSampler | null = null;
/** The running pipeline's transports (core/sdk/transport.ts): their errors are reported with the plugin's context. */
let transports: SideTransport[] = [];
let transportFailed = false;
/** Called at the run's first transport error (a failed start waits a moment for one: see play()). */
let onTransportError: (() => void) | null = null;
/** How long a failed start of a pipeline with a transport waits for the transport's own error. */
const TRANSPORT_ERROR_GRACE_MS = 500;
const COMPANION_TIMEOUT_MS = 15000;
/** From a teardown to the malloc_trim after it (trimSoon). */
const TRIM_DELAY_MS = 1000;

function send(msg: object): void {
  if (process.connected) process.send?.(msg);
}

function emit(ev: HostEvent): void {
  send(ev);
}

class HostError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

function onBus(msg: BusMessage): void {
  switch (msg.type) {
    case 'state-changed':
      emit({ event: 'state', state: msg.current });
      break;
    case 'error': {
      const message = errorMessage(transports, msg);
      // A transport's failure causes what follows it (a typefind left without data): it stays the run's error.
      if (!transportFailed) lastError = message;
      if (!transportFailed && transports.some((t) => t.element === msg.source)) {
        transportFailed = true;
        onTransportError?.();
      }
      emit({ event: 'error', message, source: msg.source, debug: msg.debug });
      break;
    }
    case 'warning':
      emit({ event: 'warning', message: msg.message, source: msg.source });
      break;
    case 'eos':
      if (eosWaiter) eosWaiter();
      emit({ event: 'eos' });
      break;
    case 'sample':
      onSample(msg);
      break;
    case 'element':
      emit({ event: 'element', source: msg.source, name: msg.name, fields: msg.fields });
      break;
  }
}

function onSample(msg: Extract<BusMessage, { type: 'sample' }>): void {
  if (klvPacer && msg.sink === klvRelay) klvPacer.relay(Buffer.from(msg.data));
  emit({ event: 'sample', sink: msg.sink, data: msg.data, pts: msg.pts });
}

function transportErrorWithin(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      onTransportError = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    onTransportError = done;
  });
}

/** An error's message: a transport's with the context its plugin declared. */
function errorMessage(ts: readonly SideTransport[], msg: { source: string; message: string; debug: string }): string {
  const t = ts.find((x) => x.element === msg.source);
  return t ? transportError(t, msg.message, msg.debug) : msg.message;
}

/**
 * Starts a companion pipeline. At its end-of-stream it is destroyed and built again from the description: a
 * fresh pipeline re-links every dynamic pad (a NULL → PLAYING cycle of the same one does not: the description's
 * delayed links are one-shot), and the main pipeline, fed through an inter element, keeps running throughout.
 */
async function startCompanion(description: string, slot: number): Promise<void> {
  const p: Pipeline = new native.Pipeline(description, (msg) => {
    if (msg.type === 'eos') enqueue(async () => {
      if (companions[slot] !== p) return;
      // The source's KLV pauses with it: its last packet stands while the reader is rebuilt (under load, seconds).
      klvPacer?.hold();
      p.destroy();
      await startCompanion(description, slot).catch((err: Error) => {
        emit({ event: 'error', message: `the looped source could not start again: ${err.message}`, source: 'companion', debug: '' });
      });
      klvPacer?.resume();
    });
    if (msg.type === 'error') emit({ event: 'error', message: msg.message, source: msg.source, debug: msg.debug });
    if (msg.type === 'sample') onSample(msg);
  });
  for (const sink of companionSinks[slot] ?? []) p.watchSink(sink);
  companions[slot] = p;
  await p.setState('playing', COMPANION_TIMEOUT_MS);
}

let trimTimer: NodeJS.Timeout | null = null;
/**
 * Hands the pages a teardown freed back to the system (malloc_trim). glibc keeps them in its arenas otherwise, and
 * a host that stops and plays or serves on-demand RTSP viewers for months grows with the holes (60 play → destroy
 * cycles of a recording: 68 KB of RSS a cycle without, 17 KB with; docs/operations.md, "Memory over weeks"). A
 * moment after the teardown: a pipeline's last reference goes with its thread-safe function, an RTSP media is
 * torn down on the server's thread. One trim for a burst of teardowns; a trim walks every arena under its lock.
 */
function trimSoon(): void {
  if (trimTimer) return;
  trimTimer = setTimeout(() => {
    trimTimer = null;
    native.mallocTrim();
  }, TRIM_DELAY_MS);
  trimTimer.unref();
}

function teardown(): void {
  if (pipeline || services.length || companions.length) trimSoon();
  sampler?.stop();
  sampler = null;
  klvPacer?.stop();
  klvPacer = null;
  klvRelay = null;
  for (const s of services) s.close();
  services = [];
  for (const c of companions) c.destroy();
  companions = [];
  pipeline?.destroy();
  pipeline = null;
}

function startServices(specs: readonly HostService[], producer: Pipeline | null): void {
  for (const spec of specs) {
    const start = SERVICES.get(spec.kind);
    if (!start) throw new HostError('NG_ERR_ARG', `this engine host has no service of kind "${spec.kind}"`);
    services.push(start(native, spec, producer, (ev) => {
      // An on-demand media is built for the first viewer and torn down after the last.
      if (ev.type === 'media-unprepared') trimSoon();
      emit({ event: 'service', kind: spec.kind, ...ev });
    }));
  }
}

/** Clients of the services, or null without any (the statistics' rtsp_clients). */
function serviceClients(): number | null {
  return measureServices(services)?.clients ?? null;
}

async function play(cmd: Extract<HostCommand, { op: 'play' }>): Promise<unknown> {
  teardown();
  lastError = null;
  transports = cmd.meters?.transports ?? [];
  transportFailed = false;
  companionSinks = cmd.companionSinks ?? [];
  try {
    // Companions first: they feed the main pipeline (or the on-demand media) from the start.
    for (const [i, description] of (cmd.companions ?? []).entries()) await startCompanion(description, i);
  } catch (err) {
    teardown();
    const e = err as Error & { code?: string };
    throw new HostError(e.code ?? 'NG_ERR_STATE', `a companion pipeline did not start: ${e.message}`);
  }
  if (cmd.services?.some((sv) => sv.launch !== undefined)) {
    // On demand: nothing runs until a client arrives; the service builds the media then.
    try {
      startServices(cmd.services, null);
    } catch (err) {
      teardown();
      throw err;
    }
    if (cmd.meters) startStats(null, cmd.meters);
    return { state: 'ready' };
  }
  pipeline = new native.Pipeline(cmd.description, onBus);
  for (const sink of cmd.watchSinks ?? []) pipeline.watchSink(sink);
  try {
    // Counters go in before PLAYING, so the first buffer is counted; samples start once it plays.
    if (cmd.meters) sampler = newSampler(pipeline, cmd.meters);
    const playing = pipeline.setState('playing', cmd.timeoutMs);
    // From the start: the muxer outputs nothing, so the sinks never reach PLAYING, until its KLV input has data.
    if (cmd.klv) startKlv(pipeline, cmd.klv);
    const state = await playing;
    // The watched sinks are taps: the pipeline's end waits for its outputs alone (once it plays; native/src/gst-core.c).
    for (const sink of cmd.watchSinks ?? []) pipeline.exemptFromEos(sink);
    if (cmd.services) startServices(cmd.services, pipeline);
    sampler?.start();
    return { state };
  } catch (err) {
    const e = err as Error & { code?: string };
    // A transport's error can come just after the failure it caused (a secure transport's "Incorrect passphrase" is
    // said only there), and teardown() would drop it: wait a moment for it.
    if (transports.length && !transportFailed) await transportErrorWithin(TRANSPORT_ERROR_GRACE_MS);
    const why = lastError ? `${e.message}: ${lastError}` : e.message;
    teardown();
    throw new HostError(e.code ?? 'NG_ERR_STATE', why);
  }
}

function newSampler(p: Pipeline | null, meters: NonNullable<Extract<HostCommand, { op: 'play' }>['meters']>): StatsSampler {
  return new StatsSampler(p, meters, () => measureServices(services), (sample) => emit({ event: 'stats', sample }));
}

function startStats(p: Pipeline | null, meters: NonNullable<Extract<HostCommand, { op: 'play' }>['meters']>): void {
  sampler = newSampler(p, meters);
  sampler.start();
}

function startKlv(p: Pipeline, klv: NonNullable<Extract<HostCommand, { op: 'play' }>['klv']>): void {
  klvPacer = new KlvPacer({
    push: (packet, ptsNs) => p.pushBuffer(klv.appsrc, packet, ptsNs),
    runningTime: () => p.runningTime(),
    now: Date.now,
  }, klv.position, { ahead: klv.stamp === 'ahead' });
  klvRelay = klv.relay ?? null;
  klvPacer.start();
}

/** The caps of the first sample that reaches cmd.sink: the probe runs beside nothing (before a play) and is gone after. */
async function probe(cmd: Extract<HostCommand, { op: 'probe' }>): Promise<string> {
  let p: Pipeline | null = null;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<string>((resolve, reject) => {
      const fail = (code: string, why: string) => reject(new HostError(code, why));
      timer = setTimeout(() => fail('NG_ERR_TIMEOUT', `the source sent no video within ${cmd.timeoutMs} ms`), cmd.timeoutMs);
      p = new native.Pipeline(cmd.description, (msg) => {
        if (msg.type === 'sample' && msg.sink === cmd.sink) resolve(msg.caps);
        else if (msg.type === 'error') fail('NG_ERR_STATE', `the source could not be read: ${errorMessage(cmd.transports ?? [], msg)}`);
        else if (msg.type === 'eos') fail('NG_ERR_STATE', 'the source ended before any video arrived');
      });
      p.watchSink(cmd.sink);
      // Its own rejection says less than the bus error or the timeout above, which settle first or instead.
      p.setState('playing', cmd.timeoutMs).catch(() => undefined);
    });
  } finally {
    clearTimeout(timer);
    (p as Pipeline | null)?.destroy();
  }
}

async function stop(cmd: Extract<HostCommand, { op: 'stop' }>): Promise<unknown> {
  // No KLV after the end-of-stream; the muxer drains the packets it holds.
  klvPacer?.stop();
  if (pipeline && cmd.eos && pipeline.getState() === 'playing') {
    // Finalise containers: EOS must reach the sink before the pipeline goes to NULL.
    const reached = new Promise<void>((resolve) => {
      eosWaiter = resolve;
    });
    pipeline.sendEos();
    await Promise.race([reached, new Promise((r) => setTimeout(r, cmd.timeoutMs))]);
    eosWaiter = null;
  }
  teardown();
  emit({ event: 'state', state: 'null' });
  return { state: 'null' };
}

async function handle(cmd: HostCommand): Promise<unknown> {
  switch (cmd.op) {
    case 'play':
      return play(cmd);
    case 'stop':
      return stop(cmd);
    case 'set':
      if (!pipeline) throw new HostError('NG_ERR_DESTROYED', 'the pipeline is not running');
      for (const c of cmd.changes) pipeline.setProperty(c.element, c.property, c.value);
      return null;
    case 'inspect': {
      const probe = new native.Pipeline(cmd.description, () => undefined);
      try {
        return probe.elements();
      } finally {
        probe.destroy();
      }
    }
    case 'probe':
      return probe(cmd);
    case 'push':
      if (!pipeline) throw new HostError('NG_ERR_DESTROYED', 'the pipeline is not running');
      pipeline.pushBuffer(cmd.appsrc, Buffer.from(cmd.data), cmd.ptsNs);
      return null;
    case 'klv':
      if (!klvPacer) throw new HostError('NG_ERR_DESTROYED', 'the pipeline carries no KLV stream or is not running');
      klvPacer.set(cmd.position);
      return null;
    case 'force-key-unit':
      if (!pipeline) throw new HostError('NG_ERR_DESTROYED', 'the pipeline is not running');
      pipeline.forceKeyUnit(cmd.element);
      return null;
    case 'state':
      return { state: pipeline ? pipeline.getState() : 'null', rtspClients: serviceClients() ?? 0 };
    case 'name':
      // libuv writes the title over the argv's own memory, which the spare's padding made long enough.
      process.title = `${process.argv[0]} ${process.argv[1]} --pipeline ${cmd.pipeline}`;
      return null;
  }
}

// One command at a time: the core serialises per pipeline, and this queue keeps the host honest too.
let queue: Promise<void> = Promise.resolve();
function enqueue(job: () => Promise<void>): void {
  queue = queue.then(job);
}
process.on('message', (req: HostRequest) => {
  enqueue(async () => {
    try {
      const result = await handle(req.cmd);
      send({ id: req.id, ok: true, result });
    } catch (err) {
      const e = err as Error & { code?: string };
      const error: HostErrorBody = { code: e.code ?? 'NG_ERR_STATE', message: e.message };
      send({ id: req.id, ok: false, error });
    }
  });
});

function exitNow(code: number): never {
  // A pipeline stuck in a state change must not keep the process alive.
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 3000).unref();
  try {
    teardown();
  } finally {
    process.exit(code);
  }
}

// The core went away (even SIGKILLed): no orphaned hosts.
process.on('disconnect', () => exitNow(0));
process.on('SIGTERM', () => exitNow(0));
process.on('SIGINT', () => exitNow(0));

emit({ event: 'ready', pid: process.pid });
