/**
 * The RTSP server's dropped events on their way to the statistics in the Node engine host: the service reads the
 * server's droppedEvents(), the sampler sends the services' total as serviceEventsDropped beside rtspClients. Pure:
 * a scripted RtspServer stands in for the addon's, because forcing real drops would need over 1024 server events
 * (client connections) queued while the host's JS thread stalls, which no test can arrange reliably; the native
 * counter itself is the same code as the device monitor's, which test/native/devices.test.ts drives over its bound.
 */
import { describe, expect, it } from 'vitest';
import type * as Native from '../../native';
import { StatsSampler } from '../../core/engine/host-stats';
import { measureServices } from '../../core/engine/services';
import { startRtsp } from '../../core/engine/services/rtsp';
import type { StatsSample } from '../../core/engine/protocol';
import type { HostService } from '../../core/sdk';

function scriptedNative(dropped: () => number): typeof Native {
  class RtspServer {
    clientCount(): number { return 2; }
    droppedEvents(): number { return dropped(); }
    mountLaunch(): void {}
    close(): void {}
  }
  return { RtspServer } as unknown as typeof Native;
}

const onDemand = { kind: 'rtsp', mode: 'launch', host: '127.0.0.1', port: 0, path: '/live', launch: '( fakesrc )' } as unknown as HostService;

describe('RTSP server events dropped, in the engine host statistics', () => {
  it('the rtsp service reports what its server dropped', () => {
    let dropped = 0;
    const service = startRtsp(scriptedNative(() => dropped), onDemand, null, () => undefined);
    expect(service.droppedEvents()).toBe(0);
    dropped = 12;
    expect(service.droppedEvents()).toBe(12);
  });

  it('a sample carries the services\' drops beside their clients, summed; neither without a service', () => {
    const service = startRtsp(scriptedNative(() => 5), onDemand, null, () => undefined);
    let services = [service, service];
    const sent: StatsSample[] = [];
    const sampler = new StatsSampler(null, { internalSinks: [] }, () => measureServices(services), (s) => sent.push(s));
    expect(sampler.sample()).toMatchObject({ rtspClients: 4, serviceEventsDropped: 10 });
    services = [];
    const without = sampler.sample();
    expect(without.rtspClients).toBeNull();
    expect('serviceEventsDropped' in without).toBe(false);
    expect(sent).toEqual([]);
  });
});
