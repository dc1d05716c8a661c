/**
 * RTMP and RTMPS push to an ingest server (rtmp://host[:port]/app/streamkey): H.264 in FLV (flvmux streamable) sent
 * by rtmp2sink. FLV has no mapping for H.265, AV1 or Codec2, so those are refused. The stream key — everything after
 * the URI's last `/` — is a credential: the plugin reports it as the URI's secret (docs/plugins.md, "Secrets in URIs").
 */
import { createHash } from 'node:crypto';
import { definePlugin, element, isHostname, type OutputPlugin } from '../../../core/sdk';

const DEFAULT_PORT = { rtmp: 1935, rtmps: 443 } as const;
const FORM = 'output.uri must be rtmp://host[:port]/app/streamkey or rtmps://host[:port]/app/streamkey';

interface Target {
  scheme: 'rtmp' | 'rtmps';
  host: string;
  port: number;
  app: string;
  key: string;
}

/** The URI's parts, or the message that says what is wrong (never quoting the key). */
function parse(uri: string): Target | string {
  const m = /^(rtmps?):\/\/([^/]*)\/(.*)$/.exec(uri);
  if (!m) return FORM;
  const scheme = m[1] as Target['scheme'];
  const authority = m[2];
  const path = m[3];
  if (authority.includes('@')) return 'output.uri must not carry user:password@: the stream key is the credential';
  let host = authority;
  let portText: string | undefined;
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(authority);
  if (bracket) [, host, portText] = bracket;
  else if (authority.includes(':')) [host, portText] = authority.split(/:(?=[^:]*$)/);
  if (!isHostname(host) || (host.includes(':') && !bracket)) return `${FORM} (the host is not a host name or address)`;
  const port = portText === undefined ? DEFAULT_PORT[scheme] : /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
  if (port < 1 || port > 65535) return 'output.uri port must be 1 to 65535';
  // rtmp2sink's own rule: the application is the path up to its last '/', the stream (the key) what follows.
  const slash = path.lastIndexOf('/');
  const app = slash < 0 ? '' : path.slice(0, slash);
  const key = path.slice(slash + 1);
  if (!app || app.split('/').some((segment) => !segment)) return `${FORM}: the application is missing or has an empty segment`;
  if (!key) return `${FORM}: the stream key is missing`;
  return { scheme, host, port, app, key };
}

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'rtmp',
  version: '1.0.0',
  description: 'RTMP and RTMPS push to an ingest server (H.264 in FLV)',
  examples: {
    valid: [
      'rtmp://127.0.0.1/live/streamkey',
      'rtmps://ingest.example.com:443/app/sub/key-123?token=abc',
      'rtmp://[::1]:1935/live/k"ey !name=evil \\ x',
      'rtmp://127.0.0.1:1935/live/"quoted key"',
      'rtmp://127.0.0.1:1935/live/NULL',
    ],
    invalid: [
      'rtmp://127.0.0.1/live',
      'rtmp://127.0.0.1/streamkey',
      'rtmp://127.0.0.1/live/',
      'rtmp://127.0.0.1:99999/live/key',
      'rtmp://user:pw@127.0.0.1/live/key',
      'rtmp://bad host/live/key',
      'rtmp://127.0.0.1//key',
    ],
  },
  supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('rtmp://') || uri.startsWith('rtmps://'),
  // Everything after the last '/', as rtmp2sink splits it: also for a URI that does not validate, which may still
  // hold a key in the wrong place.
  secrets(uri) {
    const slash = uri.lastIndexOf('/');
    return slash > uri.indexOf('://') + 2 && slash < uri.length - 1 ? [uri.slice(slash + 1)] : [];
  },
  validate(output, pipeline, codec) {
    const errors: string[] = [];
    const t = parse(output.uri);
    if (typeof t === 'string') errors.push(t);
    // A passed-through stream's codec (null here at create) is probed at start, and this is asked again with it.
    if (codec && codec.codec !== 'h264') errors.push(`output.uri: RTMP carries H.264 only (FLV has no mapping for ${codec.codec}); encode with h264`);
    if (pipeline.audio) errors.push('audio cannot be sent over RTMP: FLV has no mapping for Codec2; use an RTSP, UDP or TCP output with AV1');
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    return errors;
  },
  // Two pipelines publishing the same stream would take it from each other at the server: one answers 409 instead.
  // The key is a digest and the label masks the stream key, so the 409 message carries no secret.
  claims(output) {
    const t = parse(output.uri);
    if (typeof t === 'string') return [];
    const where = `${t.scheme}://${t.host.includes(':') ? `[${t.host}]` : t.host.toLowerCase()}:${t.port}/${t.app}`;
    const key = createHash('sha256').update(`${where}/${t.key}`).digest('hex');
    return [{ resource: 'rtmp-stream', key, label: `RTMP stream ${where}/***` }];
  },
  fragment(output, _streams, ctx) {
    const t = parse(output.uri) as Target;
    const mux = ctx.name('mux');
    // Connecting at the first buffer rather than on READY: a server that is not there is then an error of a playing
    // pipeline, recovered with backoff like a lost source, instead of a start that fails and is given up.
    const sink = element('rtmp2sink', {
      name: ctx.name('rtmpsink'), scheme: t.scheme, host: t.host, port: t.port, application: t.app, stream: t.key,
      'async-connect': false,
    });
    return {
      shared: `${element('flvmux', { name: mux, streamable: true })} ! ${sink}`,
      // Named: a queue's ANY caps would let the parser take flvmux's audio pad.
      streams: [`queue ! ${mux}.video`],
    };
  },
});
