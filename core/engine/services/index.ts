/** The services an engine host can run, by kind (./service.ts). */
import { startRtsp } from './rtsp';
import type { ServiceStarter } from './service';

export const SERVICES: ReadonlyMap<string, ServiceStarter> = new Map([['rtsp', startRtsp]]);

export type { RunningService, ServiceEvent, ServiceStarter } from './service';
