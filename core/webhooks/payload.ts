/** The outbound webhook payload, built from a pipeline event: pure, golden-tested. */
import type { PipelineEvent } from '../events/pipeline-events';
import type { PipelineView } from '../pipeline/model';
import type { WebhookEvent } from './schema';

export interface WebhookPayload {
  event: WebhookEvent;
  timestamp: string;
  pipeline: { id: string; name: string; state: 'playing' | 'stopped'; output_url: string };
}

/** The webhook event a pipeline event maps to, or null when webhooks do not carry it. */
export function webhookEventOf(ev: PipelineEvent): WebhookEvent | null {
  if (ev.type === 'started') return 'pipeline.started';
  if (ev.type === 'stopped') return 'pipeline.stopped';
  return null;
}

/**
 * `name` is the pipeline id: pipelines have no other name (a stored pipeline's description is free text,
 * often long, and absent for most). `output_url` is the output URI; advanced pipelines have no output
 * object, so it is ''.
 */
export function buildPayload(event: WebhookEvent, pipeline: PipelineView, at: Date): WebhookPayload {
  return {
    event,
    timestamp: at.toISOString(),
    pipeline: {
      id: pipeline.id,
      name: pipeline.id,
      state: event === 'pipeline.started' ? 'playing' : 'stopped',
      output_url: pipeline.output?.uri ?? '',
    },
  };
}
