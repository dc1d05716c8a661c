/**
 * Secrets inside source and output URIs, as their plugins report them (SourcePlugin/OutputPlugin.secrets; docs/plugins.md,
 * "Secrets in URIs"): masked as *** in every pipeline view, put back when a client sends the masked form it was shown,
 * sealed at rest (core/secrets/sealed-credentials.ts) and masked in logs (core/secrets/known-secrets.ts). The core
 * never knows what a secret looks like; the plugin that accepts the URI says.
 */
import { validationError } from '../errors/catalogue';
import type { PluginRegistry } from '../plugins/registry';
import type { MultiviewInput, PipelineDefinition } from '../pipeline/model';
import { holdSecrets, installUriMasker, MASK, releaseSecrets } from './known-secrets';

type Kind = 'source' | 'output';
type Record_ = Record<string, unknown>;

/** A URI inside a log line or an error message: up to a space, a quote or an angle bracket. */
const URI_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

function isRecord(v: unknown): v is Record_ {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** uri with each of secrets replaced by ***, longest first (a secret inside another is masked with it). */
export function maskUri(uri: string, secrets: readonly string[]): string {
  let out = uri;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(MASK);
  return out;
}

/** The secrets in uri reported by the registry's plugin of that kind. */
function secretsOf(registry: PluginRegistry, uri: string, kind: Kind): string[] {
  try {
    const plugin = kind === 'source' ? registry.source(uri) : registry.output(uri);
    if (!plugin?.secrets) return [];
    const found = plugin.secrets(uri);
    return Array.isArray(found) ? found.filter((s): s is string => typeof s === 'string' && s.length > 0 && uri.includes(s)) : [];
  } catch {
    // A plugin that cannot say what is secret in its URI: all of it is.
    return [uri];
  }
}

/** Whether a stored string is a URI with secrets: the sealing store's predicate (core/app.ts). */
export function hasUriSecrets(registry: PluginRegistry): (text: string) => boolean {
  return (text) => text.includes('://') && (secretsOf(registry, text, 'source').length > 0 || secretsOf(registry, text, 'output').length > 0);
}

export class UriSecrets {
  /** A definition's URI objects (and inputs arrays) → what a view shows of them; the same object when nothing is secret. */
  private readonly masked = new WeakMap<object, object>();

  constructor(private readonly registry: PluginRegistry) {
    // The logs mask the URIs of this registry's plugins wherever they appear, even before a definition holds them.
    installUriMasker((text) => text.replace(URI_IN_TEXT, (uri) => maskUri(uri, [...this.of(uri, 'source'), ...this.of(uri, 'output')])));
  }

  of(uri: string, kind: Kind): string[] {
    return secretsOf(this.registry, uri, kind);
  }

  mask(uri: string, kind: Kind): string {
    const secrets = this.of(uri, kind);
    return secrets.length ? maskUri(uri, secrets) : uri;
  }

  /** What a view shows of a source or output object: a new one only when its URI has secrets (cached per object). */
  spec<T extends { uri: string }>(spec: T, kind: Kind): T {
    const cached = this.masked.get(spec) as T | undefined;
    if (cached) return cached;
    const uri = this.mask(spec.uri, kind);
    const shown = uri === spec.uri ? spec : { ...spec, uri };
    this.masked.set(spec, shown);
    return shown;
  }

  /** Multiview inputs as a view shows them: a new array, with new input objects, only when some source has secrets. */
  inputs(inputs: MultiviewInput[]): MultiviewInput[] {
    const cached = this.masked.get(inputs) as MultiviewInput[] | undefined;
    if (cached) return cached;
    let shown = inputs;
    inputs.forEach((input, i) => {
      const source = this.spec(input.source, 'source');
      if (source === input.source) return;
      if (shown === inputs) shown = inputs.slice();
      shown[i] = { ...input, source };
    });
    this.masked.set(inputs, shown);
    return shown;
  }

  /** Makes def's secrets known to the log masking, under its id, instead of what that id held before. */
  hold(def: PipelineDefinition): void {
    const secrets = [
      ...(def.source ? this.of(def.source.uri, 'source') : []),
      ...(def.inputs ?? []).flatMap((input) => this.of(input.source.uri, 'source')),
      ...(def.output ? this.of(def.output.uri, 'output') : []),
    ];
    holdSecrets(def.id, secrets);
  }

  release(id: string): void {
    releaseSecrets(id);
  }

  /**
   * A create, update or store body with every URI the client sent in the masked form it was shown (a GET's answer
   * sent back) replaced by the current value of that field, secrets included. A URI whose secret is *** and that
   * matches no current value is a 400 naming the field. Returns body itself when nothing was masked.
   */
  unmask(body: unknown, current?: PipelineDefinition): unknown {
    if (!isRecord(body)) return body;
    const errors: string[] = [];
    const currentSources = [current?.source, ...(current?.inputs ?? []).map((input) => input.source)];
    const restore = (field: string, spec: unknown, kind: Kind, candidates: Array<{ uri: string } | undefined>): Record_ | null => {
      if (!isRecord(spec) || typeof spec.uri !== 'string' || !spec.uri.includes(MASK)) return null;
      const uri = spec.uri;
      if (!this.of(uri, kind).some((s) => s.includes(MASK))) return null;
      const match = candidates.find((c) => c && this.mask(c.uri, kind) === uri);
      if (match) return { ...spec, uri: match.uri };
      errors.push(current
        ? `${field} contains *** where a secret was, but it does not match the current value`
        : `${field} contains *** where a secret was, but there is no current value to keep: send the secret itself`);
      return null;
    };
    let out = body;
    const set = (key: string, value: unknown) => {
      if (out === body) out = { ...body };
      out[key] = value;
    };
    const source = restore('source.uri', body.source, 'source', currentSources);
    if (source) set('source', source);
    const output = restore('output.uri', body.output, 'output', [current?.output]);
    if (output) set('output', output);
    if (Array.isArray(body.inputs)) {
      let changed = false;
      const inputs = body.inputs.map((input: unknown, i) => {
        if (!isRecord(input)) return input;
        // The same input first: two inputs may differ only in their secrets.
        const s = restore(`inputs[${i}].source.uri`, input.source, 'source', [current?.inputs?.[i]?.source, ...currentSources]);
        if (!s) return input;
        changed = true;
        return { ...input, source: s };
      });
      if (changed) set('inputs', inputs);
    }
    if (errors.length) throw validationError(errors);
    return out;
  }
}
