/**
 * UDP unicast and multicast. Codecs that fit MPEG-TS go as TS in 7×188-byte datagrams (the STANAG 4609
 * habit); multicast is sent on the interface named by network_interface or inline as udp://iface@group:port.
 */
import { definePlugin, element, isMulticast, parseHostPort, type OutputPlugin, type OutputSpec } from '../../../core/sdk';

function target(output: OutputSpec) {
  const hp = parseHostPort(output.uri, 'udp');
  if (!hp) return null;
  const iface = output.network_interface ?? hp.iface;
  return { ...hp, iface, multicast: isMulticast(hp.host) };
}

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'udp',
  version: '1.0.0',
  description: 'UDP unicast and multicast (MPEG-TS)',
  supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('udp://'),
  validate(output, _pipeline, codec) {
    const t = target(output);
    if (!t) return ['output.uri must be udp://host:port or udp://iface@group:port'];
    const errors: string[] = [];
    if (t.iface && !/^[a-zA-Z0-9_.:-]{1,15}$/.test(t.iface)) errors.push('output.network_interface must be an interface name');
    if (output.network_interface && t.iface && !t.multicast) {
      errors.push('output.network_interface is used only with a multicast group');
    }
    if (codec && !codec.containers.includes('mpegts')) {
      errors.push(`output.uri: ${codec.codec} cannot be sent as MPEG-TS over UDP`);
    }
    return errors;
  },
  claims(output) {
    const t = target(output);
    if (!t) return [];
    return t.multicast
      ? [{ resource: 'udp-multicast', key: `${t.host}:${t.port}@${t.iface ?? ''}`, label: `UDP multicast group ${t.host}:${t.port}${t.iface ? ` on ${t.iface}` : ''}` }]
      : [{ resource: 'udp-destination', key: `${t.host.toLowerCase()}:${t.port}`, label: `UDP destination ${t.host}:${t.port}` }];
  },
  fragment(output, streams, ctx) {
    const t = target(output)!;
    const mux = ctx.name('mux');
    const sink = element('udpsink', {
      name: ctx.name('udpsink'),
      host: t.host,
      port: t.port,
      ...(t.multicast ? { 'auto-multicast': true, 'multicast-iface': t.iface, 'ttl-mc': 1 } : {}),
    });
    return {
      shared: `${element('mpegtsmux', { name: mux, alignment: 7 })} ! ${sink}`,
      streams: streams.map(() => `queue ! ${mux}.`),
    };
  },
});
