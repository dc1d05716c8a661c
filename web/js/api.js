// Every call goes to /api/* on this origin (the web server proxies it to the API's /svc/*). The token lives in
// sessionStorage: it is gone when the tab closes, and it never appears in a URL.
const TOKEN_KEY = 'encoderd.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (t) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** A failed call, with the API's own words. */
export class ApiFailure extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.body = body;
  }

  /** Every message of the answer: `details.errors` when there are some, else the one message. */
  get messages() {
    const errors = this.body?.details?.errors;
    return Array.isArray(errors) && errors.length ? errors.map(String) : [this.message];
  }
}

/** The text an operator sees for an error body: `{message, details.errors}`, `{error}`, or the status. */
export function describe(status, body) {
  if (body && typeof body === 'object') {
    const errors = body.details && Array.isArray(body.details.errors) ? body.details.errors : [];
    if (errors.length > 1) return errors.join('\n');
    if (typeof body.message === 'string') {
      const retry = body.retry_after_seconds ? ` (retry in ${body.retry_after_seconds} s)` : '';
      return body.message + retry;
    }
    if (typeof body.error === 'string') return body.error;
  }
  return `request failed (HTTP ${status})`;
}

let onUnauthorized = () => {};
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

/** The headers every call carries: the bearer token when there is one. */
export function authHeaders(extra = {}) {
  const t = token.get();
  return t ? { ...extra, authorization: `Bearer ${t}` } : { ...extra };
}

export async function api(method, path, body) {
  const headers = authHeaders({ accept: 'application/json' });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = text;
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiFailure(res.status, data);
  return data;
}

/** A binary GET (snapshots, framegrab files): the Blob, or an ApiFailure with the API's words. */
export async function apiBlob(path, signal) {
  const res = await fetch(`/api${path}`, { headers: authHeaders(), cache: 'no-store', signal });
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    let data;
    try {
      data = await res.json();
    } catch {
      data = undefined;
    }
    throw new ApiFailure(res.status, data);
  }
  return res.blob();
}

export const pipelinePath = (id) => `/pipeline/${encodeURIComponent(id)}`;
