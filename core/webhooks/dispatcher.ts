/**
 * Delivers pipeline.started / pipeline.stopped to every matching subscriber: fire-and-forget, all in parallel,
 * each POST aborted after 5 s, no retries, failures logged (url and outcome only, never the headers).
 *
 * The manager emits events synchronously from inside an API request; the listener only schedules the
 * deliveries (setImmediate) and returns, so no subscriber, however slow, delays that request.
 */
import type { Logger } from 'pino';
import type { PipelineEvent, PipelineEvents } from '../events/pipeline-events';
import { redactUri } from '../log/logger';
import { buildPayload, webhookEventOf, type WebhookPayload } from './payload';
import type { DeliveryTarget, WebhookRegistry } from './registry';

export const DELIVERY_TIMEOUT_MS = 5000;

/** How a delivery ended (counted by the metrics): 2xx, another status, no answer in time, or no answer at all. */
export const DELIVERY_RESULTS = ['delivered', 'failed_status', 'failed_timeout', 'failed_error'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

export class WebhookDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private unsubscribe: (() => void) | null = null;
  private onResult: (result: DeliveryResult) => void = () => undefined;

  constructor(
    private readonly registry: WebhookRegistry,
    private readonly log: Logger,
    private readonly timeoutMs = DELIVERY_TIMEOUT_MS,
  ) {}

  attach(events: PipelineEvents): void {
    this.unsubscribe ??= events.subscribe((ev) => this.onEvent(ev));
  }

  /** Tells each delivery's result (the metrics count them). */
  onDelivery(fn: (result: DeliveryResult) => void): void {
    this.onResult = fn;
  }

  private onEvent(ev: PipelineEvent): void {
    const event = webhookEventOf(ev);
    if (!event || !('pipeline' in ev)) return;
    const payload = buildPayload(event, ev.pipeline, new Date());
    setImmediate(() => {
      for (const target of this.registry.deliveryTargets(event)) this.track(this.deliver(target, payload));
    });
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private async deliver(target: DeliveryTarget, payload: WebhookPayload): Promise<void> {
    const where = { webhook: target.id, url: redactUri(target.url), event: payload.event, pipeline: payload.pipeline.id };
    const started = Date.now();
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: { ...target.headers, 'content-type': 'application/json', 'user-agent': 'encoderd-webhook' },
        body: JSON.stringify(payload),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The body is not wanted; reading it frees the connection.
      await res.arrayBuffer().catch(() => undefined);
      this.onResult(res.status >= 200 && res.status < 300 ? 'delivered' : 'failed_status');
      if (res.status >= 200 && res.status < 300) this.log.debug({ ...where, status: res.status, ms: Date.now() - started }, 'webhook delivered');
      else this.log.warn({ ...where, status: res.status, ms: Date.now() - started }, 'webhook delivery failed: subscriber answered an error');
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      this.onResult(e.name === 'TimeoutError' ? 'failed_timeout' : 'failed_error');
      const reason = e.name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      this.log.warn({ ...where, reason, ms: Date.now() - started }, 'webhook delivery failed');
    }
  }

  /** Waits for deliveries under way (each ends within the timeout); used on shutdown and by tests. */
  async settle(): Promise<void> {
    // Deliveries are scheduled with setImmediate: let those already scheduled start first.
    await new Promise((r) => setImmediate(r));
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  detach(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }
}
