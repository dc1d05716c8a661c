/** The services an engine host can run, by kind (./service.ts). */
import { startRtsp } from './rtsp';
import type { RunningService, ServiceFigures, ServiceStarter } from './service';

export const SERVICES: ReadonlyMap<string, ServiceStarter> = new Map([['rtsp', startRtsp]]);

/** The services' figures summed, or null without any service. */
export function measureServices(services: readonly RunningService[]): ServiceFigures | null {
  if (!services.length) return null;
  return {
    clients: services.reduce((n, s) => n + s.clients(), 0),
    eventsDropped: services.reduce((n, s) => n + s.droppedEvents(), 0),
  };
}

export type { RunningService, ServiceEvent, ServiceFigures, ServiceStarter } from './service';
