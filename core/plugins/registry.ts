/**
 * The plugin registry: the core's only way to learn about sources, codecs and outputs. Built-in and vendor
 * plugins register the same way; a duplicate name or codec fails at startup, naming the plugin.
 */
import type { CodecPlugin, OutputPlugin, Plugin, SourcePlugin } from '../sdk';

export interface PluginSummary {
  name: string;
  kind: string;
  version: string;
  origin: 'builtin' | 'vendor';
}

export class PluginRegistry {
  private readonly plugins: Array<{ plugin: Plugin; origin: 'builtin' | 'vendor' }> = [];

  register(plugin: Plugin, origin: 'builtin' | 'vendor' = 'builtin'): void {
    if (this.plugins.some((p) => p.plugin.name === plugin.name && p.plugin.kind === plugin.kind)) {
      throw new Error(`plugin "${plugin.name}": a ${plugin.kind} plugin of that name is already registered`);
    }
    if (plugin.kind === 'codec' && this.codec(plugin.codec)) {
      throw new Error(`plugin "${plugin.name}": codec "${plugin.codec}" is already provided by another plugin`);
    }
    if (plugin.kind === 'codec') this.checkCodec(plugin);
    this.plugins.push({ plugin, origin });
  }

  /** A codec's parameters share one object with its medium's other codecs' (docs/plugins.md, "Encoding parameters"). */
  private checkCodec(plugin: CodecPlugin): void {
    for (const name of Object.keys(plugin.parameters ?? {})) {
      const other = this.ofKind('codec').find((c) => c.media === plugin.media && c.parameters?.[name]);
      if (other) throw new Error(`plugin "${plugin.name}": parameter "${name}" is already declared by codec "${other.codec}"`);
    }
    const mv = plugin.multiview && this.multiviewCodec();
    if (mv) throw new Error(`plugin "${plugin.name}": codec "${mv.codec}" is already the one multiview encodes with`);
    if (plugin.multiview && plugin.media !== 'video') throw new Error(`plugin "${plugin.name}": multiview encodes video, and this codec is ${plugin.media}`);
  }

  private ofKind<K extends Plugin['kind']>(kind: K): Array<Extract<Plugin, { kind: K }>> {
    return this.plugins.map((p) => p.plugin).filter((p): p is Extract<Plugin, { kind: K }> => p.kind === kind);
  }

  source(uri: string): SourcePlugin | undefined {
    return this.ofKind('source').find((p) => p.accepts(uri));
  }

  output(uri: string): OutputPlugin | undefined {
    return this.ofKind('output').find((p) => p.accepts(uri));
  }

  codec(codec: string): CodecPlugin | undefined {
    return this.ofKind('codec').find((p) => p.codec === codec);
  }

  /**
   * The video codec whose encoded caps media type is that of caps (e.g. `video/x-h264, stream-format=…` → h264), as
   * negotiated by a running stream; undefined when no codec plugin has it.
   */
  codecByCaps(caps: string): CodecPlugin | undefined {
    const media = (s: string) => s.split(',')[0].trim().toLowerCase();
    return this.codecs('video').find((c) => media(c.caps) === media(caps));
  }

  codecs(media?: 'video' | 'audio'): CodecPlugin[] {
    return this.ofKind('codec').filter((p) => !media || p.media === media);
  }

  /** The video codec multiview mode encodes with (CodecPlugin.multiview). */
  multiviewCodec(): CodecPlugin | undefined {
    return this.ofKind('codec').find((p) => p.multiview);
  }

  macroCodec(tag: string): CodecPlugin | undefined {
    return this.ofKind('codec').find((p) => p.macro?.tag === tag);
  }

  /** The names every source plugin gives coded device formats (SourcePlugin.deviceFormats), merged in order. */
  deviceFormatNames(): Readonly<Record<string, string>> {
    const names: Record<string, string> = {};
    for (const p of this.all()) if (p.kind === 'source' && p.deviceFormats) Object.assign(names, p.deviceFormats);
    return names;
  }

  summary(): PluginSummary[] {
    return this.plugins.map(({ plugin, origin }) => ({ name: plugin.name, kind: plugin.kind, version: plugin.version, origin }));
  }

  all(): Plugin[] {
    return this.plugins.map((p) => p.plugin);
  }
}
