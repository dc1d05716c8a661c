/** A pipeline's geolocation (lat/lon or MGRS) as the numbers ST 0601 carries. Pure. */
import { toPoint } from 'mgrs';
import type { Geolocation } from '../pipeline/model';
import { encodeSt0601 } from './st0601';

export interface Position {
  latitude: number;
  longitude: number;
  altitude?: number;
  heading?: number;
}

/** Lat/lon as given, or the centre of the MGRS square; throws for an MGRS reference that does not convert. */
export function toPosition(g: Geolocation): Position {
  let latitude = g.latitude;
  let longitude = g.longitude;
  if (g.mgrs !== undefined) {
    [longitude, latitude] = toPoint(g.mgrs.replace(/\s+/g, '').toUpperCase());
  }
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    throw new Error('geolocation has no position');
  }
  return { latitude, longitude, altitude: g.altitude, heading: g.heading };
}

/** Whether an MGRS reference converts to a position. */
export function mgrsValid(mgrs: string): boolean {
  try {
    toPosition({ mgrs });
    return true;
  } catch {
    return false;
  }
}

/** One ST 0601 packet for now: the position when there is one, else only the time stamp. */
export function st0601Packet(position: Position | null, nowMs: number): Buffer {
  return encodeSt0601({ timestampUs: BigInt(Math.round(nowMs)) * 1000n, ...(position ?? {}) });
}
