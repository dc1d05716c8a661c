/**
 * The core's side of the native engine host's protocol (docs/engine-host.md): the same commands, replies and events as
 * protocol.ts, carried as JSON lines, so binary fields travel as base64 and what is policy stays here:
 * - a transport's error is worded with its plugin's context (transports.ts) from the bus error the host reports
 *   (an `error` event, or the `cause` of a failed play or probe);
 * - a transport's figures are read from the text of its stats property the host samples (`transportText`);
 * - the KLV pacer's packets are encoded here (st0601.ts) and handed over with the offset of their timestamp value,
 *   which the host writes at each push.
 * The rest of the core sees HostCommand and HostMessage exactly as from the Node host.
 */
import { encodeSt0601 } from '../klv/st0601';
import type { KlvPosition } from '../klv/pacer';
import type { HostCommand, HostErrorBody, HostMessage, StatsSample } from './protocol';
import { transportError, transportFigures, type SideTransport, type TransportFigures } from './transports';

/** A timestamp no real packet carries, to find where the value sits in an encoded packet. */
const STAMP_SENTINEL = 0x0102030405060708n;

/** The packet the host paces for position (null: the minimal set), with where its timestamp value is. */
export function klvPacket(position: KlvPosition | null): { packet: string; stampAt: number; positioned: boolean } {
  const packet = encodeSt0601({ timestampUs: STAMP_SENTINEL, ...(position ?? {}) });
  const sentinel = Buffer.alloc(8);
  sentinel.writeBigUInt64BE(STAMP_SENTINEL);
  return { packet: packet.toString('base64'), stampAt: packet.indexOf(sentinel), positioned: position !== null };
}

interface NativeErrorBody extends HostErrorBody {
  cause?: { source: string; message: string; debug: string };
}

/** A bus error's message: a transport's with the context its plugin declared (as the Node host words it). */
function worded(ts: readonly SideTransport[], e: { source: string; message: string; debug: string }): string {
  const t = ts.find((x) => x.element === e.source);
  return t ? transportError(t, e.message, e.debug) : e.message;
}

export class NativeHostCodec {
  /** The running play's transports: its error events and stats are read with them. */
  private transports: SideTransport[] = [];
  /** Per pending request, the transports its failure's cause is worded with. */
  private readonly pending = new Map<number, SideTransport[]>();

  encode(id: number, cmd: HostCommand): object {
    switch (cmd.op) {
      case 'play': {
        this.transports = cmd.meters?.transports ?? [];
        this.pending.set(id, this.transports);
        const { klv, ...rest } = cmd;
        if (!klv) return { id, cmd: rest };
        const { position, ...pacing } = klv;
        return { id, cmd: { ...rest, klv: { ...pacing, ...klvPacket(position) } } };
      }
      case 'probe':
        this.pending.set(id, cmd.transports ?? []);
        return { id, cmd };
      case 'push':
        return { id, cmd: { ...cmd, data: Buffer.from(cmd.data).toString('base64') } };
      case 'klv':
        return { id, cmd: { op: 'klv', ...klvPacket(cmd.position) } };
      default:
        return { id, cmd };
    }
  }

  decode(msg: Record<string, unknown>): HostMessage {
    if (typeof msg.id === 'number') {
      const ts = this.pending.get(msg.id) ?? [];
      this.pending.delete(msg.id);
      const error = msg.error as NativeErrorBody | undefined;
      if (msg.ok || !error?.cause) return msg as unknown as HostMessage;
      return { id: msg.id, ok: false, error: { code: error.code, message: `${error.message}: ${worded(ts, error.cause)}` } };
    }
    switch (msg.event) {
      case 'sample':
        return { ...msg, data: Buffer.from(msg.data as string, 'base64') } as unknown as HostMessage;
      case 'error':
        return { ...msg, message: worded(this.transports, msg as never) } as unknown as HostMessage;
      case 'stats':
        return { event: 'stats', sample: this.sample(msg.sample as StatsSample & { transportText?: Array<string | null> }) };
      default:
        return msg as unknown as HostMessage;
    }
  }

  private sample(raw: StatsSample & { transportText?: Array<string | null> }): StatsSample {
    const { transportText, ...sample } = raw;
    if (!transportText) return sample;
    const figures: TransportFigures = {};
    this.transports.forEach((t, i) => {
      const f = t.stats ? transportFigures(t.stats, transportText[i] ?? null) : null;
      if (f) figures[t.side] = f;
    });
    return Object.keys(figures).length ? { ...sample, transport: figures } : sample;
  }
}
