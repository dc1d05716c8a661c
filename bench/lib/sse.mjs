/**
 * An SSE client over real HTTPS, as an operator's dashboard would hold one: every event it receives is kept with its
 * receipt time (performance.now(), this process's clock), so a benchmark can count what arrived in its window.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { atEnd } from './report.mjs';

// Its own connection: a stream held open must not take a socket from the control calls' pool.
const agent = new Agent({ keepAlive: false, rejectUnauthorized: false });

/** Opens `path` on the service and resolves once it answered 200; closed when the benchmark ends. */
export function sseWatch(svc, path) {
  return new Promise((resolveOpen, rejectOpen) => {
    const events = [];
    const headers = { accept: 'text/event-stream' };
    if (svc.token) headers.authorization = `Bearer ${svc.token}`;
    const req = httpsRequest({ host: '127.0.0.1', port: svc.port, path, agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        rejectOpen(new Error(`GET ${path} answered ${res.statusCode}`));
        res.resume();
        return;
      }
      let buf = '';
      // Closing the stream ourselves aborts the response: that is the end, not a failure.
      res.on('error', () => undefined);
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        const at = performance.now();
        buf += chunk;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, at, data: JSON.parse(data) });
        }
      });
      const watch = {
        /** The events named `name` received between t0 and t1 (performance.now() times). */
        between: (name, t0, t1) => events.filter((e) => e.event === name && e.at >= t0 && e.at < t1),
        close: () => req.destroy(),
      };
      atEnd(() => watch.close());
      resolveOpen(watch);
    });
    req.on('error', rejectOpen);
    req.end();
  });
}
