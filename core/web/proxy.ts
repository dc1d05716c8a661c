/**
 * The reverse proxy in front of the API (web UI on 8443, explorer on 38081). Bodies stream both ways with no
 * buffering, so an SSE stream reaches the browser event by event. The proxy is the edge: it replaces any
 * X-Forwarded-For a client sent with the client's socket address, which the API believes because this proxy
 * connects from a trusted address (config.trustedProxies, 127.0.0.1 and ::1 by default).
 *
 * The API's certificate is ours (self-signed or configured), so chain checks mean nothing on this hop: the
 * connection is pinned instead — the API must present exactly the certificate the service loaded, checked
 * before a byte of the request leaves.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { sendError } from './static-files';

export interface Upstream {
  host: string;
  port: number;
  /** SHA-256 fingerprint (`AA:BB:…`) of the certificate the API presents. */
  fingerprint256: string;
}

export function fingerprintOf(certPem: Buffer | string): string {
  return new X509Certificate(certPem).fingerprint256;
}

/**
 * Pure: where the proxy reaches the API listening on `host`. A wildcard or loopback listener is reached over
 * loopback (the trusted proxy address); a listener on one address is reached there.
 */
export function apiAddress(host: string): string {
  if (host === '0.0.0.0' || host === 'localhost' || host.startsWith('127.')) return '127.0.0.1';
  if (host === '::' || host === '::1') return '::1';
  return host;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

function hopHeaders(headers: IncomingHttpHeaders): Set<string> {
  const drop = new Set(HOP_BY_HOP);
  const listed = headers.connection;
  for (const name of (typeof listed === 'string' ? listed : '').split(',')) if (name.trim()) drop.add(name.trim().toLowerCase());
  return drop;
}

/**
 * Pure: the headers sent upstream. Hop-by-hop headers go; the client's own X-Forwarded-* are dropped (this is
 * the edge, anything a client put there is untrusted) and replaced by what the proxy saw.
 */
export function forwardHeaders(incoming: IncomingHttpHeaders, client: { address: string; host?: string; proto: 'https' | 'http' }, upstreamHost: string): Record<string, string | string[]> {
  const drop = hopHeaders(incoming);
  for (const h of ['host', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded', 'x-real-ip']) drop.add(h);
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || drop.has(name)) continue;
    out[name] = value;
  }
  out.host = upstreamHost;
  out['x-forwarded-for'] = client.address;
  out['x-forwarded-proto'] = client.proto;
  if (client.host) out['x-forwarded-host'] = client.host;
  return out;
}

/** Pure: the response headers passed back (raw pairs, so repeated headers survive), less hop-by-hop ones. */
export function backwardHeaders(rawHeaders: string[], parsed: IncomingHttpHeaders): string[] {
  const drop = hopHeaders(parsed);
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!drop.has(rawHeaders[i].toLowerCase())) out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return out;
}

export class ApiProxy {
  // No TLS session resumption: a resumed session presents no certificate, and every connection is pinned.
  private readonly agent = new Agent({ keepAlive: true, rejectUnauthorized: false, maxCachedSessions: 0 });
  private readonly pinned = new WeakSet<TLSSocket>();

  constructor(private readonly upstream: () => Upstream, private readonly proto: 'https' | 'http') {}

  /** Forwards req to `path` on the API and streams the answer back. */
  forward(req: IncomingMessage, res: ServerResponse, path: string): void {
    const up = this.upstream();
    const hostHeader = isIP(up.host) === 6 ? `[${up.host}]:${up.port}` : `${up.host}:${up.port}`;
    const headers = forwardHeaders(req.headers, { address: req.socket.remoteAddress ?? 'unknown', host: req.headers.host, proto: this.proto }, hostHeader);
    const upReq = httpsRequest({ host: up.host, port: up.port, method: req.method, path, headers, agent: this.agent, rejectUnauthorized: false });
    let upRes: IncomingMessage | undefined;

    upReq.on('socket', (s) => {
      const socket = s as TLSSocket;
      const send = () => req.pipe(upReq);
      if (this.pinned.has(socket)) return send();
      const check = () => {
        if (socket.getPeerCertificate()?.fingerprint256 !== up.fingerprint256) {
          upReq.destroy(new Error('the API presented a certificate other than the service\'s own'));
          return;
        }
        this.pinned.add(socket);
        send();
      };
      if (socket.getPeerCertificate?.()?.fingerprint256) check();
      else socket.once('secureConnect', check);
    });
    upReq.on('response', (r) => {
      upRes = r;
      res.writeHead(r.statusCode ?? 502, r.statusMessage, backwardHeaders(r.rawHeaders, r.headers));
      // Headers now, not with the first body chunk: an SSE client learns at once that the stream is open.
      res.flushHeaders();
      r.pipe(res);
    });
    upReq.on('error', () => {
      if (!res.headersSent) sendError(res, 502, 'INTERNAL_ERROR', 'the API did not answer');
      else res.destroy();
    });
    // The browser went away (an SSE stream closed, a navigation): end the upstream request too, so the API
    // closes its side and forgets the subscriber.
    res.on('close', () => {
      if (!upRes?.complete) upReq.destroy();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
