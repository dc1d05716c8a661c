/**
 * The secrets inside the URIs of the pipelines this process holds (SourcePlugin/OutputPlugin.secrets: a
 * transport's passphrase, a push output's stream key), so that text we did not write ourselves — a GStreamer error that echoes an
 * element's location, a host's start failure — can be masked before it is logged or answered. Process-wide on
 * purpose: the logger is created before any registry, and every child logger must mask the same set.
 */

export const MASK = '***';

/** Secrets by holder (a pipeline id): a secret stays known while any holder still has it. */
const holders = new Map<string, readonly string[]>();
/** Every known secret, longest first, so a secret that contains another is masked whole. */
let known: string[] = [];
/** Masks the secrets of every URI in a text by the plugins that accept them (installed by UriSecrets). */
let uriMasker: ((text: string) => string) | null = null;

function rebuild(): void {
  known = [...new Set([...holders.values()].flat())].sort((a, b) => b.length - a.length);
}

/** Replaces what holder held with secrets (none: releases it). */
export function holdSecrets(holder: string, secrets: readonly string[]): void {
  const kept = secrets.filter((s) => s.length > 0);
  const before = holders.get(holder);
  if (!kept.length && !before) return;
  if (kept.length) holders.set(holder, kept);
  else holders.delete(holder);
  rebuild();
}

export function releaseSecrets(holder: string): void {
  holdSecrets(holder, []);
}

export function installUriMasker(masker: (text: string) => string): void {
  uriMasker = masker;
}

/** text with every known secret, and every secret of a URI in it, replaced by ***. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(MASK);
  if (uriMasker && out.includes('://')) out = uriMasker(out);
  return out;
}
