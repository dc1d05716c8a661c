/**
 * The client's address, for rate limits and logs. It is the socket peer, except when the peer is one of the
 * configured trusted proxies (the web UI's own reverse proxy): then X-Forwarded-For is read from the right,
 * skipping trusted proxies, and the first address that is not one of them is the client. Anything a client
 * could have put further left is never believed, and a value that is not an IP address is ignored.
 */
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** `::ffff:127.0.0.1` → `127.0.0.1`, lower-case IPv6, no zone. */
export function normaliseIp(address: string): string {
  let a = address.trim().toLowerCase();
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (a.startsWith('::ffff:') && isIP(a.slice(7)) === 4) a = a.slice(7);
  return a;
}

/** Pure: the client address from the peer address and the X-Forwarded-For header value(s). */
export function resolveClientIp(peer: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: readonly string[]): string {
  const trusted = new Set(trustedProxies.map(normaliseIp));
  const from = normaliseIp(peer ?? '');
  if (!from || !trusted.has(from) || forwardedFor === undefined) return from || 'unknown';
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((h) => normaliseIp(h));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i];
    if (isIP(hop) === 0) return from;
    if (!trusted.has(hop)) return hop;
  }
  return from;
}

export function clientIp(req: FastifyRequest, trustedProxies: readonly string[]): string {
  return resolveClientIp(req.raw.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies);
}
