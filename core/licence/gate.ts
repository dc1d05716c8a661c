/**
 * The licence gate the manager asks before anything encodes. The unrestricted default allows every codec and
 * any number of streams; a signed licence (see licence.ts) narrows that.
 */
export interface LicenceGate {
  /** The features (codecs) that are not licensed, of those asked for. */
  unlicensed(features: string[]): string[];
  /** The most encoding streams that may play at once, or null for no limit. */
  maxStreams(): number | null;
  /** What is in force, for GET /svc/licence. */
  describe(): Record<string, unknown>;
  /** Why nothing may encode (a licence that does not verify or has expired), for error messages; null when fine. */
  problem?(): string | null;
}

export const unrestricted: LicenceGate = {
  unlicensed: () => [],
  maxStreams: () => null,
  describe: () => ({ status: 'unrestricted', licensee: null, codecs: null, max_streams: null, expires_at: null }),
};
