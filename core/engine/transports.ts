/**
 * What the engine host makes of the transports the source and output plugins declare (core/sdk/transport.ts): their
 * figures from the structure text of their stats property, and their errors with the plugin's context. Pure.
 */
import type { Transport, TransportStats } from '../sdk';
import { parseStructure, type GstStructure, type GstValue } from './gst-structure';

export type TransportSide = 'source' | 'output';

/** A transport as the composer hands it to the engine host: which side of the pipeline it carries. */
export interface SideTransport extends Transport {
  side: TransportSide;
}

/** Figures per side, as they land in stats.transport. */
export type TransportFigures = Partial<Record<TransportSide, Record<string, number>>>;

const round = (n: number) => Math.round(n * 1000) / 1000;

const asNumber = (v: GstValue | undefined): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The structures of the peers field: each item is a nested structure's text (or, already parsed, its fields). */
function peersOf(s: GstStructure, field: string): GstStructure[] {
  const list = s.fields[field];
  if (!Array.isArray(list)) return [];
  return list.map((item) => (typeof item === 'string' ? parseStructure(item) : null)).filter((p): p is GstStructure => p !== null);
}

/** The figures of one transport's stats property, from its text (null: the element gave none). */
export function transportFigures(spec: TransportStats, text: string | null): Record<string, number> | null {
  const s = text ? parseStructure(text) : null;
  if (!s) return null;
  const peers = spec.peers ? peersOf(s, spec.peers.field) : [];
  const out: Record<string, number> = {};
  for (const [name, figure] of Object.entries(spec.figures)) {
    const scale = figure.scale ?? 1;
    const top = asNumber(s.fields[figure.field]);
    if (top !== null) {
      out[name] = round(top * scale);
      continue;
    }
    const values = peers.map((p) => asNumber(p.fields[figure.field])).filter((v): v is number => v !== null);
    if (!values.length) continue;
    out[name] = round((figure.combine === 'max' ? Math.max(...values) : values.reduce((a, b) => a + b, 0)) * scale);
  }
  if (spec.peers?.count) out[spec.peers.count] = peers.length;
  return out;
}

/**
 * GStreamer's generic texts ("Could not read from resource.") leave the element's own reason to the debug string,
 * after its first line (`file(line): function (): path:`).
 */
function reasonIn(debug: string): string {
  const nl = debug.indexOf('\n');
  return nl < 0 ? '' : debug.slice(nl + 1).trim();
}

/** The message an error of a transport's element is reported with. */
export function transportError(t: Transport, message: string, debug: string): string {
  const text = reasonIn(debug) || message;
  return t.errorContext ? `${t.errorContext}: ${text}` : text;
}
