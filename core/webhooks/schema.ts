/**
 * The webhook subscriber as a client sends it (POST /svc/webhooks), with the spec's limits. What JSON schema
 * cannot say (the URL's scheme, credentials in the URL, framing headers) is checked in checkSubscriber.
 */
import { PLAIN_TEXT, SchemaValidator } from '../validation/validator';

export const WEBHOOK_EVENTS = ['pipeline.started', 'pipeline.stopped'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const MAX_WEBHOOKS = 50;
export const MAX_URL_LENGTH = 2048;
export const MAX_HEADERS = 10;
export const MAX_HEADER_KEY = 128;
export const MAX_HEADER_VALUE = 4096;

/** An HTTP field name (RFC 9110 token): anything else would make every delivery fail. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, Latin-1, space and tab: a CR or LF would split the request. */
const HEADER_VALUE = '^[\\t\\u0020-\\u007e\\u0080-\\u00ff]*$';

/**
 * Headers the HTTP client owns: they frame the request, so a subscriber may not set them. Content-Type is
 * ours too: the payload is always JSON.
 */
export const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect',
  'proxy-connection',
]);

export const subscriberSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: MAX_URL_LENGTH, pattern: PLAIN_TEXT, 'x-pattern-message': 'must not contain control characters' },
    events: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: [...WEBHOOK_EVENTS] },
    },
    headers: {
      type: 'object',
      maxProperties: MAX_HEADERS,
      additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE, pattern: HEADER_VALUE, 'x-pattern-message': 'must be visible text without line breaks' },
    },
  },
} as const;

/** The body as the OpenAPI document shows it: the schema, with what checkSubscriber adds said in schema terms. */
export const subscriberDocSchema = {
  ...subscriberSchema,
  properties: {
    ...subscriberSchema.properties,
    url: { ...subscriberSchema.properties.url, allOf: [{ pattern: '^https?://' }], description: 'An absolute http or https URL, without credentials (send them in headers)' },
    headers: {
      ...subscriberSchema.properties.headers,
      propertyNames: { maxLength: MAX_HEADER_KEY, pattern: HEADER_NAME.source },
      description: `Write-only, sent with each delivery; names are case-insensitive and unique, and not ${[...RESERVED_HEADERS].join(', ')}`,
    },
  },
} as const;

export interface SubscriberBody {
  url: string;
  events: WebhookEvent[];
  headers?: Record<string, string>;
}

const validator = new SchemaValidator<SubscriberBody>(subscriberSchema);

/** Validates a POST body; returns the body or the messages, each naming the field. */
export function checkSubscriber(body: unknown): { value?: SubscriberBody; errors: string[] } {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) return { errors: ['body must be an object'] };
  const r = validator.validate(body);
  const errors = [...r.errors];
  const raw = body as Record<string, unknown>;
  if (typeof raw.url === 'string' && raw.url.length <= MAX_URL_LENGTH) errors.push(...checkUrl(raw.url));
  if (raw.headers && typeof raw.headers === 'object' && !Array.isArray(raw.headers)) {
    for (const key of Object.keys(raw.headers)) {
      // Keys are checked here rather than by propertyNames, whose messages cannot name the offending key.
      if (key.length > MAX_HEADER_KEY) errors.push(`headers key "${key.slice(0, 32)}…" must be at most ${MAX_HEADER_KEY} characters`);
      else if (!HEADER_NAME.test(key)) errors.push(`headers key "${key}" is not a valid HTTP header name`);
      else if (RESERVED_HEADERS.has(key.toLowerCase())) errors.push(`headers.${key} is set by the service and cannot be overridden`);
    }
    const lower = Object.keys(raw.headers).map((k) => k.toLowerCase());
    if (new Set(lower).size !== lower.length) errors.push('headers must not repeat a name (header names are case-insensitive)');
  }
  return errors.length ? { errors } : { value: r.value, errors: [] };
}

function checkUrl(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return ['url must be an absolute http or https URL'];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return ['url must use http or https'];
  // The url is returned by every GET; a secret belongs in the write-only headers.
  if (parsed.username || parsed.password) return ['url must not contain credentials (send them in headers, which are never returned)'];
  return [];
}
