/**
 * Webhook deliveries by result. Deliveries are fire-and-forget with no retries (docs/webhooks.md), so a failure
 * is otherwise seen only in the log: this counter lets an alert see it.
 */
import { Counter, type Registry } from 'prom-client';
import { DELIVERY_RESULTS, type DeliveryResult } from '../webhooks/dispatcher';

export function registerWebhookMetrics(registry: Registry): (result: DeliveryResult) => void {
  const deliveries = new Counter({
    name: 'encoderd_webhook_deliveries_total',
    help: 'Webhook deliveries by result: delivered (2xx), failed_status (another status), failed_timeout '
      + '(no answer in time), failed_error (no connection, TLS, DNS).',
    labelNames: ['result'],
    registers: [registry],
  });
  // Every result from the start: a series that appears only at its first failure has no earlier zero for
  // increase() to compare with, and an alert on it would miss the first failure.
  for (const result of DELIVERY_RESULTS) deliveries.inc({ result }, 0);
  return (result) => deliveries.inc({ result });
}
