/**
 * What the engine host serves besides its pipeline, by kind (core/sdk HostService). An output plugin asks for a
 * service in its fragment; the host starts the implementation registered for that kind (./index.ts) and knows
 * nothing else of it, so a new served output adds a kind here and leaves the host protocol as it is.
 */
import type { Pipeline } from '../../../native';
import type { HostService } from '../../sdk';
import type { Native } from '../native';

/** What a service tells the core: `media-prepared` / `media-unprepared` drive an on-demand pipeline's state. */
export interface ServiceEvent {
  type: string;
  clients?: number;
  path?: string;
}

export interface RunningService {
  /** Clients it serves now (the statistics' rtsp_clients). */
  clients(): number;
  /** Its events that the bounded queue to the host's JS thread dropped (the statistics' service_events_dropped). */
  droppedEvents(): number;
  close(): void;
}

/** What the running services measure together (the statistics' rtsp_clients and service_events_dropped). */
export interface ServiceFigures {
  clients: number;
  eventsDropped: number;
}

/**
 * Starts one service. `producer`: the running pipeline it serves from, or null on demand (the spec's `launch` is
 * then the whole description, built per client). Throws with a `code` (NG_ERR_*) when it cannot start.
 */
export type ServiceStarter = (native: typeof Native, spec: HostService, producer: Pipeline | null, emit: (ev: ServiceEvent) => void) => RunningService;
