/**
 * The claim table: which active pipeline holds which resource. Checking and taking claims is one synchronous
 * step, so two concurrent requests can never both win the same port or file.
 */
import type { Claim } from '../sdk';

export interface ConflictFound {
  claim: Claim;
  holder: string;
}

export class ClaimTable {
  private readonly held = new Map<string, { holder: string; claim: Claim }>();
  private readonly byHolder = new Map<string, string[]>();

  private static key(c: Claim): string {
    return `${c.resource}\u0000${c.key}`;
  }

  /** The first conflict of claims against other holders or within themselves, if any. */
  check(holder: string, claims: Claim[]): ConflictFound | null {
    const seen = new Set<string>();
    for (const c of claims) {
      const k = ClaimTable.key(c);
      if (c.exclusiveWithinPipeline && seen.has(k)) return { claim: c, holder };
      seen.add(k);
      const other = this.held.get(k);
      if (other && other.holder !== holder) return { claim: c, holder: other.holder };
    }
    return null;
  }

  /** Takes claims if none conflicts; returns the conflict otherwise. */
  take(holder: string, claims: Claim[]): ConflictFound | null {
    const conflict = this.check(holder, claims);
    if (conflict) return conflict;
    this.release(holder);
    const keys: string[] = [];
    for (const c of claims) {
      const k = ClaimTable.key(c);
      this.held.set(k, { holder, claim: c });
      keys.push(k);
    }
    this.byHolder.set(holder, keys);
    return null;
  }

  release(holder: string): void {
    for (const k of this.byHolder.get(holder) ?? []) {
      if (this.held.get(k)?.holder === holder) this.held.delete(k);
    }
    this.byHolder.delete(holder);
  }

  holds(holder: string): boolean {
    return this.byHolder.has(holder);
  }
}

export function conflictMessage(found: ConflictFound, self: string): string {
  return found.holder === self
    ? `${found.claim.label} is used by more than one input of pipeline "${self}"`
    : `${found.claim.label} is in use by pipeline "${found.holder}"`;
}
