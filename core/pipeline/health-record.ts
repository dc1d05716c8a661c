/**
 * The failure record of each pipeline and the health judged from it: last_error, the counters, the failures health
 * counts, the failure of the last start the operator asked for, and the last judgement. The one writer of those
 * fields of an Entry; the rules themselves are pure (core/pipeline/stats.ts).
 */
import type { Logger } from 'pino';
import type { Entry } from './entry';
import { FAILURE_WINDOW_MS, judgeHealth } from './stats';

export class HealthRecord {
  /** changed: e's pipeline object changed in what watchers see (its health); they are told. */
  constructor(private readonly log: Logger, private readonly changed: (e: Entry) => void) {}

  /** An error of the pipeline: its last_error (with its time), its counters and the failures health counts. */
  error(e: Entry, message: string, counted = true): void {
    const now = Date.now();
    e.lastError = message;
    e.counters = { ...e.counters, errors: e.counters.errors + (counted ? 1 : 0), last_error: { message, at: new Date(now).toISOString() } };
    if (counted) e.failures = [...e.failures.filter((t) => t > now - FAILURE_WINDOW_MS), now];
    // Health follows at once: a watcher never sees the new last_error beside the previous health reason.
    this.judge(e);
  }

  hostRestarted(e: Entry): void {
    e.counters = { ...e.counters, host_restarts: e.counters.host_restarts + 1 };
  }

  sourceReconnected(e: Entry): void {
    e.counters = { ...e.counters, source_reconnects: e.counters.source_reconnects + 1 };
  }

  /** A start the operator asked for (create, play, restore, a patch's rebuild) failed: health is failing for it. */
  startFailed(e: Entry, message: string): void {
    e.startFailure = `the pipeline did not start: ${message}`;
  }

  /** The operator asked again (play, stop, PUT): the last start's failure is no longer the news. */
  clearStartFailure(e: Entry): void {
    e.startFailure = null;
  }

  /** A start succeeded: an error in the run's last moments before playing (interrupted) stays its last error. */
  started(e: Entry, interrupted: boolean): void {
    if (!interrupted) e.lastError = null;
    e.startFailure = null;
  }

  /** Judges e's health now; a change is sent as pipeline_status (and logged). */
  judge(e: Entry): void {
    const life = e.life;
    if (life.deleted) return;
    const now = Date.now();
    if (e.failures.length && e.failures[0] <= now - FAILURE_WINDOW_MS) e.failures = e.failures.filter((t) => t > now - FAILURE_WINDOW_MS);
    const next = judgeHealth({
      now, wanted: life.wanted === 'playing' && !e.def.on_demand, startFailure: e.startFailure, wantedSince: life.wantedSince,
      playing: life.state === 'playing', window: life.stats, lastError: e.counters.last_error, failures: e.failures,
      fps: e.def.encoding?.fps ?? null,
    });
    if (next.health === e.health.health && next.reason === e.health.reason) return;
    const was = e.health.health;
    e.health = next;
    if (next.health !== was) this.log.info({ pipeline: e.def.id, health: next.health, reason: next.reason, was }, 'pipeline health changed');
    this.changed(e);
  }
}
