/**
 * The registered webhook subscribers: one store document per subscriber (collection 'webhooks'), headers
 * sealed by the SecretBox. The registry is the only place that sees headers in the clear, and it hands them
 * out only to the dispatcher (deliveryTargets); every view it returns leaves them out.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { ApiError, validationError } from '../errors/catalogue';
import type { Store } from '../store/json-store';
import { checkSubscriber, MAX_WEBHOOKS, type WebhookEvent } from './schema';
import type { Sealed, SecretBox } from '../secrets/secret-box';

const COLLECTION = 'webhooks';

/** What every response shows. Headers are write-only. */
export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  created_at: string;
}

interface StoredWebhook extends WebhookView {
  /** Registration order: lists keep it, even for webhooks created within the same millisecond. */
  seq: number;
  /** Absent when the subscriber registered no headers. */
  headers_sealed?: Sealed;
}

export interface DeliveryTarget extends WebhookView {
  headers: Record<string, string>;
}

export class WebhookRegistry {
  private readonly hooks = new Map<string, StoredWebhook>();

  constructor(private readonly store: Store, private readonly box: SecretBox, private readonly log: Logger) {
    for (const name of store.list(COLLECTION)) {
      const doc = store.read<StoredWebhook>(COLLECTION, name);
      if (doc) this.hooks.set(doc.id, doc);
    }
  }

  list(): WebhookView[] {
    return [...this.hooks.values()].sort((a, b) => a.seq - b.seq).map(view);
  }

  create(body: unknown): WebhookView {
    const { value, errors } = checkSubscriber(body);
    if (!value) throw validationError(errors);
    // Checked after validation: an invalid body is told what is wrong with it even when the list is full.
    if (this.hooks.size >= MAX_WEBHOOKS) {
      throw new ApiError('WEBHOOK_LIMIT_REACHED', `${MAX_WEBHOOKS} webhooks are already registered; delete one first`);
    }
    const id = randomUUID();
    const seq = Math.max(0, ...[...this.hooks.values()].map((h) => h.seq)) + 1;
    const doc: StoredWebhook = { id, seq, url: value.url, events: value.events, created_at: new Date().toISOString() };
    if (value.headers && Object.keys(value.headers).length) doc.headers_sealed = this.box.seal(value.headers, id);
    this.store.write(COLLECTION, id, doc);
    this.hooks.set(id, doc);
    return view(doc);
  }

  remove(id: string): void {
    if (!this.hooks.has(id)) throw new ApiError('NOT_FOUND', `webhook "${id}" not found`);
    this.store.remove(COLLECTION, id);
    this.hooks.delete(id);
  }

  /** Subscribers of an event, with their headers opened. A subscriber whose headers cannot be opened is skipped and logged. */
  deliveryTargets(event: WebhookEvent): DeliveryTarget[] {
    const out: DeliveryTarget[] = [];
    for (const doc of this.hooks.values()) {
      if (!doc.events.includes(event)) continue;
      try {
        const headers = doc.headers_sealed ? this.box.open<Record<string, string>>(doc.headers_sealed, doc.id) : {};
        out.push({ ...view(doc), headers });
      } catch (err) {
        this.log.error({ webhook: doc.id, err: (err as Error).message }, 'webhook headers cannot be opened (key changed?); not delivering');
      }
    }
    return out;
  }
}

function view(doc: StoredWebhook): WebhookView {
  return { id: doc.id, url: doc.url, events: [...doc.events], created_at: doc.created_at };
}
