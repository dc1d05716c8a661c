/** HTTP(S) calls for the web UI and explorer tests, with a chosen local address (127.0.0.x) when asked. */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  body: any;
}

export function call(port: number, method: string, path: string, opts: { body?: unknown; token?: string; localAddress?: string; plain?: boolean; headers?: Record<string, string> } = {}): Promise<Reply> {
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const headers: Record<string, string> = { ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const request = opts.plain ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, localAddress: opts.localAddress, rejectUnauthorized: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}
