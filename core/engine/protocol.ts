/** The IPC protocol between the core and one engine host. Commands carry an id; replies echo it. */
import type { LiveChange, RtspService } from '../sdk';

export type HostCommand =
  | {
    op: 'play'; description: string; rtsp?: RtspService; timeoutMs: number; watchSinks?: string[]; companions?: string[];
    /** A buffer pushed into an appsrc while the pipeline starts: a muxer waits for data on every pad before its first output. */
    prime?: { appsrc: string; data: Uint8Array };
  }
  | { op: 'stop'; eos: boolean; timeoutMs: number }
  | { op: 'set'; changes: LiveChange[] }
  | { op: 'inspect'; description: string }
  | { op: 'push'; appsrc: string; data: Uint8Array; ptsNs: number }
  | { op: 'force-key-unit'; element: string }
  | { op: 'state' };

export interface HostRequest {
  id: number;
  cmd: HostCommand;
}

export interface HostErrorBody {
  code: string;
  message: string;
}

export type HostReply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: HostErrorBody };

export type HostEvent =
  | { event: 'ready'; pid: number }
  | { event: 'state'; state: string }
  | { event: 'error'; message: string; source: string; debug: string }
  | { event: 'warning'; message: string; source: string }
  | { event: 'eos' }
  | { event: 'rtsp'; type: string; clients?: number; path?: string }
  | { event: 'sample'; sink: string; data: Uint8Array; pts: number }
  | { event: 'element'; source: string; name: string; fields: Record<string, unknown> };

export type HostMessage = HostReply | HostEvent;

export function isReply(m: HostMessage): m is HostReply {
  return typeof (m as HostReply).id === 'number';
}
