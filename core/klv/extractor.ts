/** The source's KLV as the SSE `klv` event carries it (docs/klv.md). Pure. */
import { decodeSt0601 } from './st0601';

export interface KlvEvent {
  pipeline_id: string;
  /** The packet's Precision Time Stamp (item 2), ISO 8601 UTC, when it has one. */
  timestamp?: string;
  latitude?: number;
  longitude?: number;
  altitude?: number;
  heading?: number;
  version?: number;
  checksum_ok: boolean;
  /** The buffer's presentation time in the pipeline, ns (absent when the source sent none). */
  pts_ns?: number;
}

/** Decodes one KLV buffer; null when it is not an ST 0601 local set (other KLV keys are not interpreted). */
export function klvEvent(pipelineId: string, data: Uint8Array, ptsNs: number): KlvEvent | null {
  try {
    const d = decodeSt0601(Buffer.from(data));
    return {
      pipeline_id: pipelineId,
      ...(d.timestampUs !== undefined ? { timestamp: new Date(Number(d.timestampUs / 1000n)).toISOString() } : {}),
      ...(d.latitude !== undefined ? { latitude: d.latitude } : {}),
      ...(d.longitude !== undefined ? { longitude: d.longitude } : {}),
      ...(d.altitude !== undefined ? { altitude: d.altitude } : {}),
      ...(d.heading !== undefined ? { heading: d.heading } : {}),
      ...(d.version !== undefined ? { version: d.version } : {}),
      checksum_ok: d.checksumOk,
      ...(ptsNs >= 0 ? { pts_ns: ptsNs } : {}),
    };
  } catch {
    return null;
  }
}
