/**
 * One rate-limit mechanism for the whole API: a sliding window log per key (usually the client IP). The
 * login limit (5 per 15 minutes) and the framegrab delete limits (60 and 10 per minute) are instances of it.
 * A refused request does not count, so a client that keeps hammering is let in again exactly when its
 * oldest counted request leaves the window, the time Retry-After names.
 */
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { ApiError } from '../errors/catalogue';

export interface RateLimitOptions {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  /** Keys remembered at most; beyond it the least recently used key is forgotten (bounded memory). */
  maxKeys?: number;
  now?: () => number;
}

export type RateDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private readonly now: () => number;
  private readonly maxKeys: number;

  constructor(private readonly opts: RateLimitOptions) {
    if (!(opts.limit >= 1) || !(opts.windowMs >= 1)) throw new Error('rate limit needs limit >= 1 and windowMs >= 1');
    this.now = opts.now ?? Date.now;
    this.maxKeys = opts.maxKeys ?? 10_000;
  }

  /** Counts one request for key if it is allowed; a refused request is not counted. */
  take(key: string): RateDecision {
    const now = this.now();
    const recent = this.recent(key, now);
    if (recent.length >= this.opts.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((recent[0] + this.opts.windowMs - now) / 1000));
      return { allowed: false, retryAfterSeconds };
    }
    recent.push(now);
    this.hits.delete(key);
    this.hits.set(key, recent);
    if (this.hits.size > this.maxKeys) this.hits.delete(this.hits.keys().next().value as string);
    return { allowed: true, remaining: this.opts.limit - recent.length };
  }

  /** Forgets a key (tests; an operator clearing a lockout by restarting does the same). */
  reset(key?: string): void {
    if (key === undefined) this.hits.clear();
    else this.hits.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const from = now - this.opts.windowMs;
    return (this.hits.get(key) ?? []).filter((t) => t > from);
  }
}

/** 429 in the spec's body: {message, code: 'RATE_LIMITED', retry_after_seconds}; Retry-After is set on the reply. */
export class RateLimitedError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `Too many requests; retry after ${retryAfterSeconds} seconds`);
  }

  override toBody(): { message: string; code: 'RATE_LIMITED'; retry_after_seconds: number } {
    return { message: this.message, code: 'RATE_LIMITED', retry_after_seconds: this.retryAfterSeconds };
  }
}

/** Counts one request against limiter under key; throws RateLimitedError (with Retry-After set) when over. */
export function enforce(limiter: RateLimiter, key: string, reply: FastifyReply): void {
  const decision = limiter.take(key);
  if (!decision.allowed) {
    reply.header('retry-after', String(decision.retryAfterSeconds));
    throw new RateLimitedError(decision.retryAfterSeconds);
  }
}

/** A preHandler for a route, e.g. `{ preHandler: rateLimit(new RateLimiter({limit: 60, windowMs: 60_000}), ip) }`. */
export function rateLimit(limiter: RateLimiter, keyOf: (req: FastifyRequest) => string): preHandlerAsyncHookHandler {
  return async (req, reply) => enforce(limiter, keyOf(req), reply);
}

/** The spec's Limits table. */
export const LIMITS = {
  login: { limit: 5, windowMs: 15 * 60_000 },
  framegrabDeleteFile: { limit: 60, windowMs: 60_000 },
  framegrabDeleteByPipeline: { limit: 10, windowMs: 60_000 },
} as const;
