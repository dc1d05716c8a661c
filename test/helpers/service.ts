/**
 * Starts a real encoderd (bin/encoderd, compiled) on a free port with its own data dir, and talks to it over
 * real HTTPS. Every integration and e2e test goes through this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(__dirname, '../..');

/** True when nothing holds the UDP port (on any address): the tests use the ports freePort gives for UDP too. */
function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    sock.once('error', () => { sock.close(); resolve(false); });
    sock.bind(port, '0.0.0.0', () => sock.close(() => resolve(true)));
  });
}

/**
 * A port free for TCP and UDP alike. The kernel's pick is free for TCP only, and the tests give such ports to UDP
 * senders and sources as well; engine hosts hold UDP ports of the same ephemeral range (an RTSP server's RTP and RTCP
 * pairs), and a source given one of those failed at bind ("Could not get/set settings from/on resource").
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      });
    });
    if (await udpFree(port)) return port;
  }
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** Raw body text; overrides body. */
  raw?: string | Buffer;
  token?: string;
}

export function httpsCall<T = any>(port: number, method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
  const payload = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = { ...(payload !== undefined && !opts.raw ? { 'content-type': 'application/json' } : {}), ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method, path, headers, rejectUnauthorized: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON: keep the text */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed as T, text });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export interface RunningService {
  port: number;
  dataDir: string;
  child: ChildProcess;
  logs: () => string;
  api<T = any>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

type StartOptions = { dataDir?: string; args?: string[]; env?: NodeJS.ProcessEnv };

/**
 * A port freePort found can be taken before encoderd binds it (another test's engine host or outgoing connection,
 * in the same ephemeral range; CI saw EADDRINUSE once), so a start that fails on exactly that tries a new port.
 */
export async function startService(opts: StartOptions = {}): Promise<RunningService> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'encoderd-test-'));
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(await freePort(), dataDir, opts);
    } catch (err) {
      if (attempt >= 5 || !/EADDRINUSE/.test(String((err as Error).message))) throw err;
    }
  }
}

async function launch(port: number, dataDir: string, opts: StartOptions): Promise<RunningService> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/encoderd'), '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir,
    '--web-port', '0', '--log-level', 'info', ...(opts.args ?? [])], {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // About 1.5 s on a quiet machine; a full suite beside soaks once took more than 20 s (host chaos, 2026-11-27).
  const deadline = Date.now() + 40000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`encoderd exited early (${child.exitCode}):\n${output}`);
    try {
      const r = await httpsCall(port, 'GET', '/svc/healthz');
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`encoderd did not become ready:\n${output}`);
    await sleep(100);
  }
  return {
    port,
    dataDir,
    child,
    logs: () => output,
    api: (method, path, body, o) => httpsCall(port, method, path, body, o),
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls fn until it returns a truthy value or the time is up. */
export async function waitFor<T>(fn: () => T | Promise<T>, timeoutMs = 10000, stepMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting${last ? `: ${(last as Error).message}` : ''}`);
    await sleep(stepMs);
  }
}

/** Runs a command and collects its output. */
export function run(cmd: string, args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...opts.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A simple-mode body: test source encoded to H.264. */
export function h264Body(id: string, outputUri: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    mode: 'simple',
    source: { uri: 'test://ball' },
    encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 30 },
    output: { uri: outputUri },
    ...extra,
  };
}

/** Whether a process exists (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids of a process's children (pgrep -P): a service's engine hosts, the spare included. */
export async function childPids(parent: number): Promise<number[]> {
  const r = await run('pgrep', ['-P', String(parent)]);
  return r.stdout.split('\n').filter(Boolean).map(Number);
}

/** The engine host pid of each pipeline id, from the service's children. */
export async function hostPidsByPipeline(servicePid: number): Promise<Map<string, number>> {
  const r = await run('ps', ['-o', 'pid=,args=', '--ppid', String(servicePid)]);
  const out = new Map<string, number>();
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+.*--pipeline (\S+)/.exec(line);
    if (m) out.set(m[2], Number(m[1]));
  }
  return out;
}

/** The pid of the service's spare engine host (core/engine/spare-host.ts: `--spare` in its argv), or undefined. */
export async function sparePid(servicePid: number): Promise<number | undefined> {
  const r = await run('ps', ['-o', 'pid=,args=', '--ppid', String(servicePid)]);
  const m = /^\s*(\d+)\s.*\s--spare\b/m.exec(r.stdout);
  return m ? Number(m[1]) : undefined;
}

/** Receives UDP datagrams on 127.0.0.1:port into an array with arrival times. */
export async function udpReceiver(port: number) {
  const { createSocket } = await import('node:dgram');
  const sock = createSocket('udp4');
  const packets: Array<{ at: number; data: Buffer }> = [];
  sock.on('message', (data) => packets.push({ at: Date.now(), data }));
  await new Promise<void>((r) => sock.bind(port, '127.0.0.1', () => r()));
  return { packets, close: () => sock.close() };
}
