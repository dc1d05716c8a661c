/** URI helpers shared by plugins. Pure: parse, never touch the network. */

export interface HostPort {
  host: string;
  port: number;
  /** The interface named inline as `iface@host:port`, if any. */
  iface?: string;
}

const PORT = /^\d{1,5}$/;

/** `udp://host:port`, `udp://iface@host:port`, `tcp://[::1]:port`; null when it is not of that form. */
export function parseHostPort(uri: string, scheme: string): HostPort | null {
  const prefix = `${scheme}://`;
  if (!uri.startsWith(prefix)) return null;
  let rest = uri.slice(prefix.length);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  let iface: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    iface = rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (!/^[a-zA-Z0-9_.:-]{1,15}$/.test(iface)) return null;
  }
  let host: string;
  let portText: string;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0 || rest[close + 1] !== ':') return null;
    host = rest.slice(1, close);
    portText = rest.slice(close + 2);
  } else {
    const colon = rest.lastIndexOf(':');
    if (colon < 0) return null;
    host = rest.slice(0, colon);
    portText = rest.slice(colon + 1);
  }
  if (!PORT.test(portText)) return null;
  const port = Number(portText);
  if (port < 1 || port > 65535 || !isHostname(host)) return null;
  return { host, port, ...(iface ? { iface } : {}) };
}

/** An IPv4 or IPv6 literal or a DNS name; nothing that could carry other syntax. */
export function isHostname(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  if (host.includes(':')) return /^[0-9a-fA-F:.]+$/.test(host);
  return /^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*$/.test(host);
}

/** Multicast: 224.0.0.0/4 or ff00::/8. */
export function isMulticast(host: string): boolean {
  const v4 = /^(\d{1,3})\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.exec(host);
  if (v4) {
    const first = Number(v4[1]);
    return first >= 224 && first <= 239;
  }
  return /^ff[0-9a-f]{2}:/i.test(host);
}

/** A local path from `/abs/path` or `file:///abs/path`; null otherwise. */
export function filePath(uri: string): string | null {
  if (uri.startsWith('file://')) {
    const path = uri.slice('file://'.length);
    return path.startsWith('/') ? decodeURIComponentSafe(path) : null;
  }
  return uri.startsWith('/') ? uri : null;
}

/** null when undecodable or when it decodes to NUL (%00): no path can hold one, and the serializer refuses it. */
function decodeURIComponentSafe(text: string): string | null {
  try {
    const decoded = decodeURIComponent(text);
    return decoded.includes('\0') ? null : decoded;
  } catch {
    return null;
  }
}

/** The file name extension, lower case, without the dot. */
export function extension(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
