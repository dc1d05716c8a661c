/** The `serves` extension point: its shape is checked at definePlugin, and the route serves only plain names matched whole. */
import { describe, expect, it } from 'vitest';
import { servable } from '../../core/http/routes/served-files';
import { guarded } from '../../core/plugins/loader';
import { definePlugin, type OutputPlugin, type ServedFiles } from '../../core/sdk';

const output = (serves: unknown) => ({
  kind: 'output', name: 'srv', version: '1.0.0', supportsOnDemand: false,
  accepts: () => true, validate: () => [], claims: () => [], fragment: () => ({ shared: '', streams: [] }), serves,
}) as unknown as OutputPlugin;

describe('OutputPlugin.serves', () => {
  const type = () => 'text/plain';
  it('definePlugin checks its shape, naming the plugin', () => {
    expect(() => definePlugin(output({ path: 'files', files: /^a\.txt$/, contentType: type }))).not.toThrow();
    expect(() => definePlugin(output({ path: 'Files', files: /a/, contentType: type }))).toThrow('plugin "srv": serves.path must be lower-case letters, digits or "-"');
    expect(() => definePlugin(output({ path: 'a/b', files: /a/, contentType: type }))).toThrow(/serves\.path/);
    expect(() => definePlugin(output({ path: 'files', files: '^a$', contentType: type }))).toThrow('plugin "srv": serves.files must be a RegExp without the g or y flag');
    expect(() => definePlugin(output({ path: 'files', files: /a/g, contentType: type }))).toThrow(/serves\.files/);
    expect(() => definePlugin(output({ path: 'files', files: /a/, contentType: 'text/plain' }))).toThrow('plugin "srv": serves.contentType must be a function');
  });

  it('a vendor plugin\'s contentType is wrapped like its hooks', () => {
    const plugin = guarded(output({ path: 'files', files: /a/, contentType: () => { throw new Error('kaput'); } })) as OutputPlugin;
    expect(() => plugin.serves!.contentType('a')).toThrow('plugin "srv" hook serves.contentType: kaput');
  });

  it('only plain names the pattern matches whole are servable, whatever the pattern allows', () => {
    const serves = (files: RegExp): ServedFiles => ({ path: 'files', files, contentType: type });
    expect(servable('index.m3u8', serves(/index\.m3u8/))).toBe(true);
    expect(servable('xindex.m3u8', serves(/index\.m3u8/))).toBe(false);
    expect(servable('index.m3u8x', serves(/index\.m3u8/))).toBe(false);
    const any = serves(/.*/s);
    for (const name of ['../other/index.m3u8', '/etc/passwd', '..', '.', '.hidden', 'a/b', 'a\\b', 'a\0', '', 'a b']) expect(servable(name, any), name).toBe(false);
    expect(servable('segment00001.ts', any)).toBe(true);
  });
});
