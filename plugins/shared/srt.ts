/**
 * What the SRT source and output share: the URI (`srt://host:port?mode=…&latency=…&passphrase=…&pbkeylen=…&streamid=…`),
 * its rules, the element properties it sets on srtsrc/srtsink, the port it claims and the passphrase it keeps secret.
 * Pure: parse and describe, never touch the network.
 */
import { isHostname, type Claim, type PropValue } from '../../core/sdk';

export type SrtMode = 'caller' | 'listener' | 'rendezvous';

export interface SrtTarget {
  /** The peer (caller, rendezvous) or the local address to listen on; '' for any. */
  host: string;
  port: number;
  mode: SrtMode;
  latencyMs: number;
  passphrase?: string;
  pbkeylen?: 16 | 24 | 32;
  streamid?: string;
}

export const DEFAULT_LATENCY_MS = 120;
const MAX_LATENCY_MS = 60000;
const ANY = new Set(['', '0.0.0.0', '::']);
const MODES: readonly SrtMode[] = ['caller', 'listener', 'rendezvous'];
const KNOWN = ['mode', 'latency', 'passphrase', 'pbkeylen', 'streamid'];
/** libsrt's bounds (SRTO_PASSPHRASE); printable ASCII written as is, so the URI holds exactly what is sealed. */
const PASSPHRASE = /^[\x21-\x24\x27-\x7e]{10,79}$/;
/** SRTO_STREAMID's limit. */
const MAX_STREAMID = 512;

/** The raw `key=value` pairs of the query, in order; values as written (not decoded). */
function queryPairs(query: string): Array<[string, string | null]> {
  return query.split('&').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=');
    return eq < 0 ? [pair, null] : [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

function hostPort(authority: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]*)):(\d{1,5})\/?$/.exec(authority);
  if (!m) return null;
  const host = m[1] ?? m[2];
  const port = Number(m[3]);
  if (port < 1 || port > 65535 || (host !== '' && !isHostname(host))) return null;
  return { host, port };
}

/**
 * The target of an SRT URI, or the messages (each naming field) that refuse it. Without `mode`, an empty host,
 * `0.0.0.0` or `[::]` listens and any other host is called.
 */
export function parseSrtUri(uri: string, field: string): { target: SrtTarget } | { errors: string[] } {
  const form = `${field} must be srt://host:port (call), srt://0.0.0.0:port (listen) or srt://:port, with optional ?mode=caller|listener|rendezvous&latency=ms&passphrase=…&pbkeylen=16|24|32&streamid=…`;
  if (!uri.startsWith('srt://')) return { errors: [form] };
  const rest = uri.slice('srt://'.length);
  const q = rest.indexOf('?');
  const hp = hostPort(q < 0 ? rest : rest.slice(0, q));
  if (!hp) return { errors: [form] };
  const errors: string[] = [];
  const params = new Map<string, string>();
  for (const [key, value] of queryPairs(q < 0 ? '' : rest.slice(q + 1))) {
    if (!KNOWN.includes(key)) errors.push(`${field} has an unknown SRT parameter "${key.slice(0, 40)}" (known: ${KNOWN.join(', ')})`);
    else if (params.has(key)) errors.push(`${field} gives ${key} more than once`);
    else if (value === null) errors.push(`${field} gives ${key} without a value`);
    else params.set(key, value);
  }

  const mode = params.get('mode') ?? (ANY.has(hp.host) ? 'listener' : 'caller');
  if (!MODES.includes(mode as SrtMode)) errors.push(`${field}: mode must be caller, listener or rendezvous`);
  else if (mode !== 'listener' && ANY.has(hp.host)) errors.push(`${field}: a ${mode} needs the address of its peer, not "${hp.host || '(empty)'}"`);

  const latencyText = params.get('latency');
  const latencyMs = latencyText === undefined ? DEFAULT_LATENCY_MS : /^\d{1,5}$/.test(latencyText) ? Number(latencyText) : NaN;
  if (!(latencyMs <= MAX_LATENCY_MS)) errors.push(`${field}: latency must be a whole number of milliseconds from 0 to ${MAX_LATENCY_MS}`);

  const passphrase = params.get('passphrase');
  if (passphrase !== undefined && !PASSPHRASE.test(passphrase)) {
    errors.push(`${field}: passphrase must be 10 to 79 characters, printable ASCII written as is (no spaces, % or &)`);
  }

  const keylenText = params.get('pbkeylen');
  const pbkeylen = keylenText === undefined ? undefined : Number(keylenText);
  if (keylenText !== undefined && !['16', '24', '32'].includes(keylenText)) errors.push(`${field}: pbkeylen must be 16, 24 or 32`);
  else if (pbkeylen !== undefined && passphrase === undefined) errors.push(`${field}: pbkeylen needs a passphrase`);

  let streamid: string | undefined;
  const streamidText = params.get('streamid');
  if (streamidText !== undefined) {
    try {
      streamid = decodeURIComponent(streamidText);
    } catch {
      errors.push(`${field}: streamid has a malformed %-escape`);
    }
    if (streamid !== undefined && (streamid.length > MAX_STREAMID || /[\x00-\x1f\x7f]/.test(streamid))) {
      errors.push(`${field}: streamid must be at most ${MAX_STREAMID} characters, none of them control characters`);
    }
  }

  if (errors.length) return { errors };
  return {
    target: {
      host: hp.host, port: hp.port, mode: mode as SrtMode, latencyMs,
      ...(passphrase !== undefined ? { passphrase } : {}),
      ...(pbkeylen !== undefined ? { pbkeylen: pbkeylen as 16 | 24 | 32 } : {}),
      ...(streamid !== undefined ? { streamid } : {}),
    },
  };
}

/** The target of a URI that validated. */
export function srtTarget(uri: string): SrtTarget {
  const parsed = parseSrtUri(uri, 'uri');
  if ('errors' in parsed) throw new Error(parsed.errors.join('; '));
  return parsed.target;
}

/**
 * srtsrc/srtsink properties for a target. A listener binds with localaddress/localport (1.22 binds nothing from a
 * `uri` with a host in listener mode); a caller names its peer in `uri`; a rendezvous also binds the same port,
 * as both ends of a rendezvous do. auto-reconnect is off: a lost or refused connection becomes an error, which the
 * core reports and recovers from with backoff, instead of a warning and a silent stall.
 */
export function srtProperties(t: SrtTarget): Record<string, PropValue | undefined> {
  const peer = `srt://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  return {
    ...(t.mode === 'listener'
      ? { mode: 'listener', localaddress: t.host || '0.0.0.0', localport: t.port }
      : { uri: peer, mode: t.mode, ...(t.mode === 'rendezvous' ? { localport: t.port } : {}) }),
    latency: t.latencyMs,
    passphrase: t.passphrase,
    pbkeylen: t.pbkeylen,
    streamid: t.streamid,
    'auto-reconnect': false,
  };
}

/** Where the connection goes, for people: `caller to 10.0.0.5:9000`, `listening on port 9000`. */
export function describeTarget(t: SrtTarget): string {
  const peer = `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  if (t.mode === 'listener') return `listening on ${t.host && !ANY.has(t.host) ? `${peer}` : `port ${t.port}`}`;
  return `${t.mode} to ${peer}`;
}

/**
 * A listener (and a rendezvous, which binds its port too) holds the appliance's port: the same resource and key as
 * a local RTSP server's or a listening TCP output's port, so any two of them on one port conflict. A caller binds
 * an ephemeral port and claims nothing.
 */
export function srtClaims(t: SrtTarget): Claim[] {
  if (t.mode === 'caller') return [];
  return [{ resource: 'port', key: `tcp:${t.port}`, label: `port ${t.port} (SRT ${t.mode})` }];
}

/** The passphrase as it is written in the URI (the secret the core seals and masks), whatever its value; [] when absent. */
export function srtSecrets(uri: string): string[] {
  const q = uri.indexOf('?');
  if (!uri.startsWith('srt://') || q < 0) return [];
  return queryPairs(uri.slice(q + 1)).filter(([key, value]) => key === 'passphrase' && value).map(([, value]) => value as string);
}
