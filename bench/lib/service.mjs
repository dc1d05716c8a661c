/**
 * A real encoderd (bin/encoderd over the compiled dist/) on a free port with its own data dir, spoken to over
 * real HTTPS, as an operator's client would. Its log goes to a file in the data dir, not through this process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest, Agent } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { atEnd } from './report.mjs';
import { childrenOf } from './proc.mjs';
import { sleep } from './stats.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// One kept-alive connection pool for control calls, so a benchmark's own requests do not pay a TLS handshake each.
const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });

// Longer than the service's own start timeout plus an engine host's start: a call that outlives it is stuck.
const CALL_TIMEOUT_MS = 40000;

export function httpsCall(port, method, path, body, { token, headers = {} } = {}) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const h = { ...headers };
  if (payload !== undefined) {
    h['content-type'] = 'application/json';
    h['content-length'] = String(Buffer.byteLength(payload));
  }
  if (token) h.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, method, path, headers: h, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode, body: json, text });
      });
    });
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path} had no answer in ${CALL_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Starts encoderd and waits for healthz; stopped (SIGTERM) and its data dir removed when the benchmark ends. */
export async function startService({ args = [] } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'encoderd-bench-'));
  const logFile = join(dataDir, 'service.log');
  const log = openSync(logFile, 'a');
  // BENCH_SERVICE_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles the service while it is measured.
  const nodeArgs = process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin/encoderd'), '--port', String(port), '--host', '127.0.0.1',
    '--data-dir', dataDir, '--web-port', '0', ...args], { stdio: ['ignore', log, log] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const svc = {
    port,
    dataDir,
    pid: child.pid,
    token: undefined,
    logs: () => readFileSync(logFile, 'utf8'),
    api(method, path, body, opts = {}) {
      return httpsCall(port, method, path, body, { token: svc.token, ...opts });
    },
    /** Sets a password and logs in: every later call (and SSE stream) carries the token. */
    async enableAuth(password = 'bench-password-0123') {
      const set = await svc.api('PUT', '/svc/auth/password', { password });
      if (set.status !== 200) throw new Error(`PUT /svc/auth/password answered ${set.status}: ${set.text}`);
      const login = await svc.api('POST', '/svc/auth/login', { password });
      if (login.status !== 200 || !login.body?.token) throw new Error(`POST /svc/auth/login answered ${login.status}: ${login.text}`);
      svc.token = login.body.token;
      const denied = await httpsCall(port, 'GET', '/svc/pipeline');
      if (denied.status !== 401) throw new Error(`auth is not enforced: GET /svc/pipeline without a token answered ${denied.status}`);
      return svc.token;
    },
    /** The engine host process of a pipeline (a child of the service started with `--pipeline <id>`). */
    hostPid(id) {
      const host = childrenOf(child.pid).find((c) => c.argv.includes('--pipeline') && c.argv[c.argv.indexOf('--pipeline') + 1] === id);
      return host?.pid;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  atEnd(() => svc.stop());
  const deadline = Date.now() + 30000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`encoderd exited early (${child.exitCode}):\n${svc.logs()}`);
    const r = await httpsCall(port, 'GET', '/svc/healthz').catch(() => null);
    if (r?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`encoderd did not become ready:\n${svc.logs()}`);
    await sleep(100);
  }
  return svc;
}

/** A simple-mode body: a live test pattern encoded to H.264 (test://ball moves, so the encoder has work). */
export function h264Body(id, outputUri, encoding = {}) {
  return {
    id,
    mode: 'simple',
    source: { uri: 'test://ball' },
    encoding: { codec: 'h264', bitrate: 1000, width: 1280, height: 720, fps: 30, ...encoding },
    output: { uri: outputUri },
  };
}

/** Asserts an API answer's status, naming the call and the body when it is not what was expected. */
export function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what} answered ${res.status}, expected ${status}: ${res.text}`);
  return res.body;
}
