#!/usr/bin/env node
// Builds the N-API addon (native/build/Release/encoderd.node) and the standalone GStreamer plugin file
// (native/build/gst-plugins/libgstencoderd.so) when a source is newer than what was built. --force rebuilds.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'native');
const force = process.argv.includes('--force');
const addon = join(native, 'build/Release/encoderd.node');
const gstPlugin = join(native, 'build/gst-plugins/libgstencoderd.so');

function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.(c|h|gyp)$/.test(e.name)) out.push(p);
  }
  return out;
}
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const all = [...sources(join(native, 'src')), join(native, 'binding.gyp')];
const newestSource = Math.max(...all.map(mtime));

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (force || mtime(addon) < newestSource) {
  process.stderr.write('[setup] building the native addon\n');
  // No network for header downloads: build against the headers of the Node that runs this script.
  const nodedir = process.env.npm_config_nodedir
    || (existsSync(join(dirname(process.execPath), '../include/node/node_api.h')) ? join(dirname(process.execPath), '..') : null);
  const gyp = (verb) => run(process.execPath, [join(root, 'node_modules/node-gyp/bin/node-gyp.js'), verb, '--silent',
    ...(nodedir ? [`--nodedir=${nodedir}`] : [])], native);
  // configure + build rather than rebuild: the old addon stays loadable until the new one replaces it. binding.gyp
  // lists the sources when it is configured, so a new or removed file configures again.
  const listFile = join(native, 'build/.sources');
  const list = all.map((p) => p.slice(native.length + 1)).sort().join('\n');
  const configured = existsSync(listFile) ? readFileSync(listFile, 'utf8') : null;
  if (force || !existsSync(join(native, 'build/Makefile')) || configured !== list) gyp('configure');
  gyp('build');
  writeFileSync(listFile, list);
}

const elementSources = [...sources(join(native, 'src/elements'))].filter((p) => p.endsWith('.c'));
if (force || mtime(gstPlugin) < Math.max(...elementSources.map(mtime))) {
  process.stderr.write('[setup] building the standalone GStreamer plugin\n');
  mkdirSync(dirname(gstPlugin), { recursive: true });
  const flags = spawnSync('pkg-config', ['--cflags', '--libs', 'gstreamer-1.0', 'gstreamer-base-1.0', 'gstreamer-rtp-1.0',
    'gstreamer-audio-1.0', 'gstreamer-video-1.0', 'codec2'], { encoding: 'utf8' }).stdout.trim().split(/\s+/);
  run('gcc', ['-shared', '-fPIC', '-O2', '-Wall', '-Wno-unused-parameter', '-std=gnu11', '-o', gstPlugin,
    ...elementSources, ...flags], native);
}
