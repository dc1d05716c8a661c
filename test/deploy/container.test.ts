/**
 * The container image's parts that can be checked in seconds without podman (scripts/build-image.sh builds and runs
 * the image itself, in minutes: docs/operations.md records its result): the run-time package list against the
 * build list, the Containerfile's contract, its HEALTHCHECK command against a real service, and node-gyp-build
 * choosing a prebuild in a deployed tree, as core/paths.ts does for the native engine host.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeHostIn } from '../../core/paths';
import { freePort, ROOT, run, startService } from '../helpers/service';

const list = (file: string) => readFileSync(join(ROOT, file), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
const containerfile = readFileSync(join(ROOT, 'deploy/container/Containerfile'), 'utf8');
/** Each -dev package of the build list and the run-time library it stands for. */
const RUNTIME_OF_DEV: Record<string, string> = {
  'libgstreamer1.0-dev': 'libgstreamer1.0-0',
  'libgstreamer-plugins-base1.0-dev': 'libgstreamer-plugins-base1.0-0',
  'libgstreamer-plugins-bad1.0-dev': 'libgstreamer-plugins-bad1.0-0',
  'libgstrtspserver-1.0-dev': 'libgstrtspserver-1.0-0',
  'libcodec2-dev': 'libcodec2-1.0',
  'libjson-glib-dev': 'libjson-glib-1.0-0',
};
const BUILD_ONLY = new Set(['pkg-config', 'build-essential']);

describe('deploy/container', () => {
  it('installs exactly the run-time part of scripts/debian-packages.txt: nothing to build with', () => {
    const build = list('scripts/debian-packages.txt');
    const runtime = list('deploy/container/runtime-packages.txt');
    const expected = build.filter((p) => !BUILD_ONLY.has(p)).map((p) => {
      if (!p.endsWith('-dev')) return p;
      expect(RUNTIME_OF_DEV, `${p}: which library does it stand for?`).toHaveProperty([p]);
      return RUNTIME_OF_DEV[p];
    });
    expect([...runtime].sort()).toEqual([...expected].sort());
  });

  it('Debian 12 slim, a non-root user, /data as a volume, a HEALTHCHECK on /svc/healthz, STOPSIGNAL SIGTERM', () => {
    expect(containerfile).toMatch(/^ARG BASE=docker\.io\/library\/debian:bookworm-slim$/m);
    expect(containerfile).toMatch(/^FROM \$\{BASE\}$/m);
    expect(containerfile).toMatch(/^USER encoderd$/m);
    expect(containerfile).toMatch(/useradd --system --uid 10001 --gid encoderd --groups video,audio/);
    expect(containerfile).toMatch(/^VOLUME \/data$/m);
    expect(containerfile).toMatch(/^ENV ENCODERD_DATA_DIR=\/data/m);
    expect(containerfile).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(containerfile).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["node", "-e", ".*\/svc\/healthz/m);
    expect(containerfile).toMatch(/^ENTRYPOINT \["node", "\/opt\/encoderd\/bin\/encoderd"\]$/m);
  });

  it('the HEALTHCHECK command: exit 0 on a ready service, 1 when nothing answers', async () => {
    const cmd = /CMD (\[.*\])$/m.exec(containerfile)![1];
    const [, flag, script] = JSON.parse(cmd) as string[];
    const service = await startService();
    try {
      const ok = await run(process.execPath, [flag, script], { env: { ENCODERD_PORT: String(service.port) } });
      expect(ok.code).toBe(0);
    } finally {
      await service.stop();
    }
    const closed = await run(process.execPath, [flag, script], { env: { ENCODERD_PORT: String(await freePort()) } });
    expect(closed.code).toBe(1);
  });

  it('node-gyp-build loads the prebuild for the platform in a tree without build/ (as deploy/stage-tree.sh makes)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-prebuild-'));
    try {
      const native = join(dir, 'native');
      const prebuilds = join(native, 'prebuilds', `${process.platform}-${process.arch}`);
      mkdirSync(prebuilds, { recursive: true });
      cpSync(join(ROOT, 'native/index.js'), join(native, 'index.js'));
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(join(ROOT, 'node_modules/node-gyp-build'), join(dir, 'node_modules/node-gyp-build'));
      // prebuildify's name for an N-API build; the addon built here is the same N-API module.
      cpSync(join(ROOT, 'native/build/Release/encoderd.node'), join(prebuilds, 'node.node'));
      const req = createRequire(join(ROOT, 'package.json'));
      const nodeGypBuild = req('node-gyp-build') as { path(dir: string): string };
      expect(nodeGypBuild.path(native)).toBe(join(prebuilds, 'node.node'));
      expect(typeof (req(native) as { gstVersion: unknown }).gstVersion).toBe('function');
      // A local build, where there is one (a checkout), comes first: C changes are tried without a prebuild step.
      mkdirSync(join(native, 'build/Release'), { recursive: true });
      cpSync(join(ROOT, 'native/build/Release/encoderd.node'), join(native, 'build/Release/encoderd.node'));
      expect(nodeGypBuild.path(native)).toBe(join(native, 'build/Release/encoderd.node'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the native engine host: the prebuild for the platform in a tree without build/, the local build first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-prebuild-'));
    try {
      const prebuilt = join(dir, 'native/prebuilds', `${process.platform}-${process.arch}`, 'encoderd-host');
      mkdirSync(dirname(prebuilt), { recursive: true });
      cpSync(join(ROOT, 'native/build/encoderd-host'), prebuilt);
      expect(nativeHostIn(dir)).toBe(prebuilt);
      // It runs where it is (its libraries resolve): started by hand, without the core's channel, it says so.
      const alone = await run(nativeHostIn(dir), ['--pipeline', 'x']);
      expect(alone.code).toBe(64);
      expect(alone.stderr).toMatch(/no NODE_CHANNEL_FD/);
      mkdirSync(join(dir, 'native/build'));
      cpSync(join(ROOT, 'native/build/encoderd-host'), join(dir, 'native/build/encoderd-host'));
      expect(nativeHostIn(dir)).toBe(join(dir, 'native/build/encoderd-host'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
