/** Pipeline events, fanned out to SSE watchers and webhooks. Only the manager emits them. */
import { EventEmitter } from 'node:events';
import type { PipelineView } from '../pipeline/model';
import type { KlvEvent } from '../klv/extractor';
import type { PipelineStats } from '../pipeline/stats-model';

export type PipelineEvent =
  | { type: 'status'; id: string; pipeline: PipelineView }
  | { type: 'deleted'; id: string }
  | { type: 'error'; id: string; message: string }
  | { type: 'started'; id: string; pipeline: PipelineView }
  | { type: 'stopped'; id: string; pipeline: PipelineView }
  | { type: 'klv'; id: string; data: KlvEvent }
  /** Once a second per playing pipeline, from its engine host's sample (sent only to watchers that ask). */
  | { type: 'stats'; id: string; stats: PipelineStats };

export class PipelineEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every SSE client and webhook subscriber is a listener; hundreds are normal.
    this.emitter.setMaxListeners(0);
  }

  emit(ev: PipelineEvent): void {
    this.emitter.emit('event', ev);
  }

  subscribe(listener: (ev: PipelineEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  /** Listeners subscribed now: every SSE stream open and the webhook dispatcher (a leak shows here first). */
  subscribers(): number {
    return this.emitter.listenerCount('event');
  }
}
