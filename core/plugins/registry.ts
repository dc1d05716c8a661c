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
    this.plugins.push({ plugin, origin });
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

  macroCodec(tag: string): CodecPlugin | undefined {
    return this.ofKind('codec').find((p) => p.macro?.tag === tag);
  }

  summary(): PluginSummary[] {
    return this.plugins.map(({ plugin, origin }) => ({ name: plugin.name, kind: plugin.kind, version: plugin.version, origin }));
  }

  all(): Plugin[] {
    return this.plugins.map((p) => p.plugin);
  }
}
