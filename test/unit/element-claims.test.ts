/**
 * Advanced-mode claims come from the plugins (SourcePlugin/OutputPlugin.elementClaims), not from factory names in
 * the core: each built-in reads its own elements with the keys of its simple-mode claims, and a vendor output that
 * reads its own sink makes an advanced pipeline conflict with its simple pipelines.
 */
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { claimsFromElements } from '../../core/compose/advanced';
import { PluginRegistry } from '../../core/plugins/registry';
import { definePlugin, type OutputPlugin, type ParsedElement } from '../../core/sdk';

function registry(...extra: OutputPlugin[]): PluginRegistry {
  const r = new PluginRegistry();
  for (const p of builtinPlugins) r.register(p);
  for (const p of extra) r.register(p, 'vendor');
  return r;
}

const el = (factory: string, properties: Record<string, string>): ParsedElement => ({ name: `${factory}0`, factory, properties });

/** The claims of a simple-mode output with this URI, from its own plugin. */
function simpleClaims(r: PluginRegistry, uri: string) {
  return r.output(uri)!.claims({ uri });
}

describe('claims read from parsed elements', () => {
  const r = registry();

  it('keys each built-in sink like its plugin\'s simple-mode claim', () => {
    expect(claimsFromElements([el('udpsink', { host: '127.0.0.1', port: '5000' })], r)).toEqual(simpleClaims(r, 'udp://127.0.0.1:5000'));
    expect(claimsFromElements([el('udpsink', { host: '239.1.1.1', port: '5000', 'multicast-iface': 'lo' })], r))
      .toEqual(simpleClaims(r, 'udp://lo@239.1.1.1:5000'));
    expect(claimsFromElements([el('tcpserversink', { host: '0.0.0.0', port: '7000' })], r)).toEqual(simpleClaims(r, 'tcp://0.0.0.0:7000'));
    expect(claimsFromElements([el('filesink', { location: '/tmp/./a.ts' })], r)).toEqual(simpleClaims(r, 'file:///tmp/a.ts'));
    expect(claimsFromElements([el('v4l2src', { device: '/dev/video3' })], r))
      .toEqual(r.source('file:///dev/video3')!.claims({ uri: 'file:///dev/video3' }));
  });

  it('reads every client of a multiudpsink, and nothing of port 0 or of elements no plugin knows', () => {
    const claims = claimsFromElements([
      el('multiudpsink', { clients: '127.0.0.1:5002,[::1]:5004' }),
      el('tcpserversink', { host: '0.0.0.0', port: '0' }),
      el('x264enc', { bitrate: '800' }),
      el('fakesink', {}),
    ], r);
    expect(claims.map((c) => c.key)).toEqual(['127.0.0.1:5002', '::1:5004']);
  });

  it('asks a vendor output for its own elements', () => {
    const vendor = definePlugin<OutputPlugin>({
      kind: 'output', name: 'acme-sink', version: '1.0.0', description: 'test', supportsOnDemand: false,
      accepts: (uri) => uri.startsWith('acme://'),
      validate: () => [],
      claims: (o) => [{ resource: 'acme-channel', key: o.uri.slice('acme://'.length), label: `ACME channel ${o.uri}` }],
      elementClaims: (e) => (e.factory === 'acmesink' ? [{ resource: 'acme-channel', key: e.properties.channel, label: `ACME channel ${e.properties.channel}` }] : []),
      fragment: () => ({ shared: 'fakesink', streams: ['queue'] }),
    });
    const claims = claimsFromElements([el('acmesink', { channel: '7' })], registry(vendor));
    expect(claims).toEqual([{ resource: 'acme-channel', key: '7', label: 'ACME channel 7' }]);
  });
});
