/** A real SSE client over HTTPS that records events and comments. */
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface SseEvent {
  event: string;
  data: any;
}

export interface SseClient {
  /** The response's headers (content-type text/event-stream). */
  headers: IncomingHttpHeaders;
  events: SseEvent[];
  comments: string[];
  /** Resolves with the first event (from the start) matching pred. */
  next(pred: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  ended: Promise<void>;
  close(): void;
}

export function openSse(port: number, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    const comments: string[] = [];
    const waiters: Array<{ pred: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }> = [];
    let endResolve: () => void = () => undefined;
    const ended = new Promise<void>((r) => { endResolve = r; });
    const req = httpsRequest({ host: '127.0.0.1', port, path, method: 'GET', headers, rejectUnauthorized: false }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`SSE answered ${res.statusCode}`));
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).trim());
          }
          if (!data.length) continue;
          const ev = { event, data: JSON.parse(data.join('\n')) };
          events.push(ev);
          for (const w of [...waiters]) {
            if (w.pred(ev)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(ev);
            }
          }
        }
      });
      res.on('end', () => endResolve());
      res.on('close', () => endResolve());
      resolve({
        headers: res.headers,
        events,
        comments,
        ended,
        next(pred, timeoutMs = 10000) {
          const found = events.find(pred);
          if (found) return Promise.resolve(found);
          return new Promise((res2, rej2) => {
            const timer = setTimeout(() => rej2(new Error(`no matching SSE event; got ${JSON.stringify(events.map((e) => e.event))}`)), timeoutMs);
            waiters.push({ pred, resolve: (e) => { clearTimeout(timer); res2(e); } });
          });
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', (err) => reject(err));
    req.end();
  });
}
