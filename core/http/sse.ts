/**
 * Server-sent events: a named event with one JSON data line, and a `: keepalive` comment every 30 s so
 * proxies keep the stream open. The stream ends when the client goes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sseStreamOpened } from '../metrics/sse-streams';

export const KEEPALIVE_MS = 30_000;

export interface SseStream {
  send(event: string, data: unknown): void;
  close(): void;
  onClose(fn: () => void): void;
}

export function openSse(request: FastifyRequest, reply: FastifyReply, keepaliveMs = KEEPALIVE_MS): SseStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    // The web UI's proxy must not buffer the stream.
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  // HEAD asks only for the headers: answer them and end, or the client would wait for ever. The stream has ended
  // before the route subscribes, so what it asks to run at the end runs at once (it stayed subscribed for ever).
  if (request.method === 'HEAD') {
    res.end();
    return { send: () => undefined, close: () => undefined, onClose: (fn) => fn() };
  }
  res.write(': connected\n\n');
  const closers: Array<() => void> = [sseStreamOpened(request)];
  let closed = false;
  const timer = setInterval(() => res.write(': keepalive\n\n'), keepaliveMs);
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    for (const fn of closers) fn();
    res.end();
  };
  request.raw.on('close', close);
  return {
    send(event, data) {
      if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close,
    onClose(fn) {
      closers.push(fn);
    },
  };
}
