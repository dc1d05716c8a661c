// Server-sent events read with fetch and a stream reader, not EventSource: EventSource cannot send the
// Authorization header, and a token in the URL would end up in logs and history (docs/web.md, "Live stream").

/** Pure: a parser fed text chunks as they arrive; calls onEvent(name, data) once per complete event. */
export function sseParser(onEvent) {
  let buffer = '';
  let name = 'message';
  let data = [];
  return (chunk) => {
    buffer += chunk;
    const lines = buffer.split('\n');
    buffer = lines.pop();
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (data.length) onEvent(name, data.join('\n'));
        name = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const key = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (key === 'event') name = value;
      else if (key === 'data') data.push(value);
    }
  };
}

/** Pure: the wait before reconnect attempt n (0-based): 1 s, 2 s, 4 s … up to 30 s. */
export const backoffMs = (n) => Math.min(30000, 1000 * 2 ** Math.min(n, 5));

// The API sends `: keepalive` every 30 s; a stream silent for longer than this is dead even if TCP has not noticed.
const SILENCE_MS = 75000;

/**
 * Keeps one stream open: reconnects with backoff after any failure, reporting each phase through onState
 * ({state: 'connecting' | 'open' | 'reconnecting' | 'unauthorized', at?, reason?}). A 401 stops it (the login
 * comes back). close() ends it for good.
 */
export function openStream(path, { headers, onEvent, onState }) {
  let closed = false;
  let attempt = 0;
  let controller;
  let retryTimer;
  let silenceTimer;

  const retry = (reason) => {
    if (closed) return;
    const wait = backoffMs(attempt++);
    onState({ state: 'reconnecting', at: Date.now() + wait, reason });
    retryTimer = setTimeout(connect, wait);
  };

  async function connect() {
    controller = new AbortController();
    const armSilence = () => {
      clearTimeout(silenceTimer);
      silenceTimer = setTimeout(() => controller.abort(new Error('the stream went silent')), SILENCE_MS);
    };
    onState({ state: 'connecting' });
    try {
      const res = await fetch(path, { headers: headers(), cache: 'no-store', signal: controller.signal });
      if (res.status === 401) {
        onState({ state: 'unauthorized' });
        return;
      }
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      attempt = 0;
      onState({ state: 'open' });
      armSilence();
      const parse = sseParser((name, text) => {
        let data;
        try {
          data = JSON.parse(text);
        } catch {
          return;
        }
        onEvent(name, data);
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        armSilence();
        parse(value);
      }
      clearTimeout(silenceTimer);
      retry('the stream ended');
    } catch (err) {
      clearTimeout(silenceTimer);
      if (!closed) retry(err?.message ?? String(err));
    }
  }

  connect();
  return {
    close() {
      closed = true;
      clearTimeout(retryTimer);
      clearTimeout(silenceTimer);
      controller?.abort();
    },
  };
}
