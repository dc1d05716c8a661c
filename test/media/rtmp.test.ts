// RTMP push into a real ingest server: nginx with Debian's libnginx-mod-rtmp, started here on a free port of 127.0.0.1
// (no http block: nothing listens on port 80), read back with ffprobe. The stream key is a secret: it must never show
// in a response, an event, the service's logs (the engine hosts' output included) or the data dir, and must keep
// working through a GET → PUT round trip, POST/PATCH /store and a restart.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../helpers/sse';
import { freePort, run, startService, waitFor, type RunningService } from '../helpers/service';
import { body, FRAME } from './receivers';

const RTMP_MODULE = '/usr/lib/nginx/modules/ngx_rtmp_module.so';
const KEY = `sk-${randomBytes(9).toString('hex')}`;

let nginxDir: string;
let nginxPort: number;
let nginx: ChildProcess | null = null;
let nginxOutput = '';
let svc: RunningService;
let events: SseClient;
/** Everything the services printed, across restarts. */
let logs = '';

function writeNginxConf(): string {
  const conf = join(nginxDir, 'nginx.conf');
  writeFileSync(conf, [
    `load_module ${RTMP_MODULE};`,
    'daemon off;',
    'master_process off;',
    'worker_processes 1;',
    `error_log ${join(nginxDir, 'error.log')} info;`,
    `pid ${join(nginxDir, 'nginx.pid')};`,
    'events { worker_connections 64; }',
    `rtmp { server { listen 127.0.0.1:${nginxPort}; application live { live on; record off; } } }`,
  ].join('\n'));
  return conf;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

async function startNginx(): Promise<void> {
  nginx = spawn('nginx', ['-c', writeNginxConf(), '-p', `${nginxDir}/`], { stdio: ['ignore', 'pipe', 'pipe'] });
  nginx.stdout!.on('data', (d: Buffer) => { nginxOutput += d.toString(); });
  nginx.stderr!.on('data', (d: Buffer) => { nginxOutput += d.toString(); });
  await waitFor(() => {
    if (nginx?.exitCode !== null) throw new Error(`nginx exited: ${nginxOutput}`);
    return accepts(nginxPort);
  }, 10000);
}

async function stopNginx(): Promise<void> {
  const n = nginx;
  nginx = null;
  if (!n || n.exitCode !== null || n.signalCode !== null) return;
  const gone = new Promise((r) => n.once('exit', r));
  n.kill('SIGKILL');
  await gone;
}

const ingest = (key = KEY) => `rtmp://127.0.0.1:${nginxPort}/live/${key}`;

/** ffprobe of the played-back stream, retried until the server has it (a play of a stream not published waits). */
async function probeStream(key = KEY): Promise<{ codec_name: string; width: number; height: number }> {
  return waitFor(async () => {
    const r = await run('ffprobe', ['-v', 'error', '-rw_timeout', '5000000', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', ingest(key)], { timeoutMs: 10000 });
    if (r.code !== 0) throw new Error(`ffprobe: ${r.stderr}`);
    return (JSON.parse(r.stdout) as { streams: Array<{ codec_name: string; width: number; height: number }> }).streams.find((s) => s.codec_name);
  }, 30000, 250);
}

/** The definition fields of a GET answer: what a client sends back with PUT. */
function definitionOf(view: Record<string, unknown>) {
  const { id, mode, on_demand, source, encoding, output } = view;
  return { id, mode, on_demand, source, encoding, output };
}

async function service(dataDir?: string): Promise<RunningService> {
  const s = await startService({ dataDir, args: ['--start-timeout-ms', '8000'] });
  s.child.stdout?.on('data', (d: Buffer) => { logs += d.toString(); });
  s.child.stderr?.on('data', (d: Buffer) => { logs += d.toString(); });
  return s;
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? allFiles(join(dir, e.name)) : [join(dir, e.name)]));
}

function expectNoKey(text: string, where: string): void {
  expect(text.includes(KEY), `${where} carries the stream key`).toBe(false);
}

beforeAll(async () => {
  if (!existsSync(RTMP_MODULE)) throw new Error(`${RTMP_MODULE} is missing: apt-get install nginx libnginx-mod-rtmp`);
  nginxDir = mkdtempSync(join(tmpdir(), 'encoderd-nginx-'));
  nginxPort = await freePort();
  await startNginx();
  svc = await service();
  events = await openSse(svc.port, '/svc/events');
});

afterAll(async () => {
  events?.close();
  await svc?.stop();
  await stopNginx();
});

describe('RTMP push into nginx-rtmp', () => {
  it('publishes H.264 that ffprobe reads back at the encoded size; every answer shows the key as ***', async () => {
    const created = await svc.api('POST', '/svc/pipeline', body('rtmp1', 'h264', ingest()));
    expect(created.status, created.text).toBe(201);
    expect(created.body.state).toBe('playing');
    expect(created.body.output.uri).toBe(ingest('***'));
    const s = await probeStream();
    expect(s).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
    const got = await svc.api('GET', '/svc/pipeline/rtmp1');
    expect(got.body.output.uri).toBe(ingest('***'));
    for (const r of [created, got, await svc.api('GET', '/svc/pipeline'), await svc.api('GET', '/svc/pipeline/rtmp1/stats')]) expectNoKey(r.text, 'a response');
  });

  it('a GET answer PUT back keeps the key: the stream plays again under it', async () => {
    const got = await svc.api('GET', '/svc/pipeline/rtmp1');
    expect((await svc.api('PUT', '/svc/pipeline/rtmp1/stop')).status).toBe(200);
    const put = await svc.api('PUT', '/svc/pipeline/rtmp1', definitionOf(got.body));
    expect(put.status, put.text).toBe(200);
    expect(put.body.output.uri).toBe(ingest('***'));
    const moved = { ...definitionOf(got.body), output: { uri: `rtmp://127.0.0.1:${nginxPort}/other/***` } };
    const refused = await svc.api('PUT', '/svc/pipeline/rtmp1', moved);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.text).toContain('output.uri contains *** where a secret was, but it does not match the current value');
    expect((await svc.api('PUT', '/svc/pipeline/rtmp1/play')).status).toBe(200);
    expect(await probeStream()).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
  });

  it('stored: no key in the data dir; PATCH /store with the masked URI keeps it; after a restart it publishes under the key again', async () => {
    const stored = await svc.api('POST', '/svc/pipeline/rtmp1/store', { auto_start: true, description: 'ingest' });
    expect(stored.status, stored.text).toBe(201);
    expect(stored.body.output.uri).toBe(ingest('***'));
    const patched = await svc.api('PATCH', '/svc/pipeline/rtmp1/store', { output: { uri: ingest('***') }, description: 'ingest, again' });
    expect(patched.status, patched.text).toBe(200);
    const mismatch = await svc.api('PATCH', '/svc/pipeline/rtmp1/store', { output: { uri: `rtmp://127.0.0.1:${nginxPort}/elsewhere/***` } });
    expect(mismatch.status).toBe(400);
    for (const f of allFiles(svc.dataDir)) expectNoKey(readFileSync(f, 'latin1'), f);
    events.close();
    expectNoKey(JSON.stringify(events.events), 'an SSE event');
    expect(events.events.some((e) => e.event === 'pipeline_status' && e.data.id === 'rtmp1')).toBe(true);
    const dataDir = svc.dataDir;
    expect(await svc.stop()).toBe(0);
    for (const f of allFiles(dataDir)) expectNoKey(readFileSync(f, 'latin1'), f);
    svc = await service(dataDir);
    events = await openSse(svc.port, '/svc/events');
    const back = await waitFor(async () => {
      const r = await svc.api('GET', '/svc/pipeline/rtmp1');
      return r.body?.state === 'playing' ? r : null;
    }, 20000);
    expect(back.body.output.uri).toBe(ingest('***'));
    expect(await probeStream()).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
  });

  it('a server that goes away, or is not there at create, is a pipeline_error and a recovery with backoff, never the end', async () => {
    await stopNginx();
    const error = await events.next((e) => e.event === 'pipeline_error' && e.data.pipeline_id === 'rtmp1', 20000);
    expect(error.data.message).toMatch(/connection closed remotely|connection refused/i);
    // Created while the server is down: it plays, fails to connect, and keeps trying.
    const late = await svc.api('POST', '/svc/pipeline', body('rtmp-late', 'h264', ingest(`${KEY}-late`)));
    expect(late.status, late.text).toBe(201);
    const refused = await events.next((e) => e.event === 'pipeline_error' && e.data.pipeline_id === 'rtmp-late', 20000);
    expect(refused.data.message).toMatch(/connection refused/i);
    // Each retry plays until its first buffer finds no server: the failures add up to health failing.
    for (const id of ['rtmp1', 'rtmp-late']) {
      const during = await waitFor(async () => {
        const r = await svc.api('GET', `/svc/pipeline/${id}`);
        return r.body.health === 'failing' ? r : null;
      }, 20000);
      expect(during.body.health_reason).toMatch(/connection refused|connection closed remotely/i);
    }
    await startNginx();
    expect(await probeStream()).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
    expect(await probeStream(`${KEY}-late`)).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/rtmp-late')).body?.state === 'playing', 10000);
    await svc.api('PUT', '/svc/pipeline/rtmp-late/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/rtmp-late')).status).toBe(204);
    expectNoKey(JSON.stringify(events.events), 'an SSE event');
  });

  it('refuses H.265, AV1 and audio at create with a message that says FLV carries H.264 only', async () => {
    for (const codec of ['h265', 'av1'] as const) {
      const r = await svc.api('POST', '/svc/pipeline', body(`rtmp-${codec}`, codec, ingest('other-key')));
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(/RTMP carries H\.264 only \(FLV has no mapping for/);
    }
    const audio = await svc.api('POST', '/svc/pipeline', body('rtmp-audio', 'h264', ingest('other-key'), { audio: { source: 'test' } }));
    expect(audio.status, audio.text).toBe(400);
    expect(audio.text).toContain('audio cannot be sent over RTMP: FLV has no mapping for Codec2');
    expect((await svc.api('GET', '/svc/pipeline/rtmp-h265')).status).toBe(404);
  });

  it('one publisher per stream: a second pipeline on the same stream is a 409 whose message has no key', async () => {
    if (!nginx) await startNginx();
    await waitFor(async () => (await svc.api('GET', '/svc/pipeline/rtmp1')).body?.state === 'playing', 40000);
    const r = await svc.api('POST', '/svc/pipeline', body('rtmp-twin', 'h264', ingest()));
    expect(r.status, r.text).toBe(409);
    expect(r.text).toContain(`RTMP stream rtmp://127.0.0.1:${nginxPort}/live/***`);
    expectNoKey(r.text, 'the 409');
  });

  it('passes an H.264 stream through (no encoding) and refuses a passed-through H.265 one (400) when its source is opened', async () => {
    if (!nginx) await startNginx();
    const port264 = await freePort();
    const port265 = await freePort();
    expect((await svc.api('POST', '/svc/pipeline', body('origin264', 'h264', `rtsp://0.0.0.0:${port264}/o`))).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline', body('origin265', 'h265', `rtsp://0.0.0.0:${port265}/o`))).status).toBe(201);
    const relay = (id: string, port: number, key: string) => ({ id, mode: 'simple', source: { uri: `rtsp://127.0.0.1:${port}/o`, latency_ms: 100 }, output: { uri: ingest(key) } });
    const ok = await svc.api('POST', '/svc/pipeline', relay('relay264', port264, `${KEY}-relay`));
    expect(ok.status, ok.text).toBe(201);
    expect(await probeStream(`${KEY}-relay`)).toMatchObject({ codec_name: 'h264', width: FRAME.width, height: FRAME.height });
    const refused = await svc.api('POST', '/svc/pipeline', relay('relay265', port265, `${KEY}-relay265`));
    // The client's mistake, known once the source is opened: 400, and nothing kept (docs/api.md, passthrough).
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_ERROR');
    expect(refused.body.details.errors[0]).toMatch(/^output\.uri: RTMP carries H\.264 only \(FLV has no mapping for h265\)/);
    expectNoKey(refused.text, 'the refusal');
    expect((await svc.api('GET', '/svc/pipeline/relay265')).status).toBe(404);
    for (const id of ['relay264', 'origin264', 'origin265']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
    }
  });

  it('the key is in no log line, the engine hosts\' output included', () => {
    expect(logs.length).toBeGreaterThan(0);
    expectNoKey(logs, 'the service logs');
    expect(logs).toContain('"pipeline":"rtmp1"');
  });
});
