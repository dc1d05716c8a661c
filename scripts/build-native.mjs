#!/usr/bin/env node
// Builds the N-API addon (native/build/Release/encoderd.node), the native engine host (native/build/encoderd-host,
// docs/engine-host.md) and the standalone GStreamer plugin file (native/build/gst-plugins/libgstencoderd.so) when a
// source is newer than what was built. --force rebuilds. --test also builds the test-only fake camera addon
// (native/build/test/encoderd-fake-cameras.node), the native host's fault shim (native/build/test/host-faults.so) and
// the x265 re-open block counter (native/build/test/x265-reopen).
//
// native/binding.gyp lists every source by name (a unit test checks the list against the files): the addon's in its
// target, the standalone plugin's and the test addon's in its variables, which this script reads. It is plain JSON
// for that reason (no comments).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'native');
const force = process.argv.includes('--force');
const test = process.argv.includes('--test');
const addon = join(native, 'build/Release/encoderd.node');
const gstPlugin = join(native, 'build/gst-plugins/libgstencoderd.so');
const testAddon = join(native, 'build/test/encoderd-fake-cameras.node');
const host = join(native, 'build/encoderd-host');
const hostFaults = join(native, 'build/test/host-faults.so');
const x265Reopen = join(native, 'build/test/x265-reopen');
const crashPlugin = join(native, 'build/test/gst-plugins/libgstencoderdtest.so');
const gypFile = join(native, 'binding.gyp');
const gyp = JSON.parse(readFileSync(gypFile, 'utf8'));
const listed = (name) => gyp.variables[name].map((p) => join(native, p));

function sources(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.(c|cc|h|gyp)$/.test(e.name)) out.push(p);
  }
  return out;
}
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const all = [...sources(join(native, 'src')), gypFile];
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
  const nodeGyp = (verb) => run(process.execPath, [join(root, 'node_modules/node-gyp/bin/node-gyp.js'), verb, '--silent',
    ...(nodedir ? [`--nodedir=${nodedir}`] : [])], native);
  // configure + build rather than rebuild: the old addon stays loadable until the new one replaces it. The Makefile
  // holds the source list, so an edited binding.gyp (a file added or removed) configures again.
  const makefile = join(native, 'build/Makefile');
  if (force || mtime(makefile) < mtime(gypFile)) nodeGyp('configure');
  nodeGyp('build');
}

const gccFlags = ['-shared', '-fPIC', '-O2', '-Wall', '-Wno-unused-parameter', '-std=gnu11'];
const pkgConfig = (...modules) => spawnSync('pkg-config', ['--cflags', '--libs', ...modules], { encoding: 'utf8' })
  .stdout.trim().split(/\s+/);

const elementSources = [...listed('element_sources'), ...listed('gst_plugin_sources')];
if (force || mtime(gstPlugin) < Math.max(mtime(gypFile), ...sources(join(native, 'src/elements')).map(mtime))) {
  process.stderr.write('[setup] building the standalone GStreamer plugin\n');
  mkdirSync(dirname(gstPlugin), { recursive: true });
  const flags = pkgConfig('gstreamer-1.0', 'gstreamer-base-1.0', 'gstreamer-rtp-1.0', 'gstreamer-audio-1.0',
    'gstreamer-video-1.0', 'codec2');
  run('gcc', [...gccFlags, '-o', gstPlugin, ...elementSources, ...flags], native);
}

// The native engine host: an executable of the addon's GStreamer layer (its N-API-free files) and encoderd's elements,
// registered statically as the addon does, with json-glib for the protocol's JSON lines.
const hostSources = [...listed('host_sources'), ...listed('gst_core_sources'), ...listed('element_sources')];
const hostInputs = [gypFile, ...sources(join(native, 'host')), ...sources(join(native, 'src'))];
if (force || mtime(host) < Math.max(...hostInputs.map(mtime))) {
  process.stderr.write('[setup] building the native engine host\n');
  const flags = pkgConfig(...gyp.variables.gst_modules.split(' '), 'gstreamer-base-1.0', 'gstreamer-rtsp-1.0', 'json-glib-1.0');
  run('gcc', [...gccFlags.filter((f) => f !== '-shared' && f !== '-fPIC'), '-o', host, ...hostSources, ...flags, '-lm'], native);
}

// The fake camera addon: a plain shared object like the plugin, against the Node headers node-gyp configured with
// (node_api symbols resolve against the node binary that loads it).
const testSources = listed('test_addon_sources');
if (test && (force || mtime(testAddon) < Math.max(mtime(gypFile), mtime(join(native, 'src/ng.h')),
  ...sources(join(native, 'test-addon')).map(mtime)))) {
  process.stderr.write('[setup] building the test-only fake camera addon\n');
  mkdirSync(dirname(testAddon), { recursive: true });
  const nodedir = /"nodedir": "([^"]+)"/.exec(readFileSync(join(native, 'build/config.gypi'), 'utf8'))[1];
  run('gcc', [...gccFlags, '-DNAPI_VERSION=8', `-I${join(nodedir, 'include/node')}`, '-o', testAddon,
    ...testSources, ...pkgConfig('gstreamer-1.0')], native);
}

// The native host's fault injection (native/test-host-faults/): an LD_PRELOAD shim the fault tests give the host, so
// that the production executable carries no test hook. No library but libc.
const faultSources = listed('test_host_faults_sources');
if (test && (force || mtime(hostFaults) < Math.max(mtime(gypFile), ...faultSources.map(mtime)))) {
  process.stderr.write('[setup] building the test-only native host fault shim\n');
  mkdirSync(dirname(hostFaults), { recursive: true });
  run('gcc', [...gccFlags, '-o', hostFaults, ...faultSources, '-lpthread'], native);
}

// The x265 re-open block counter (native/test-x265-reopen/): counts under glibc's mtrace what libx265 keeps per live
// bitrate change, for test/native/memory.test.ts.
const reopenSources = listed('test_x265_reopen_sources');
if (test && (force || mtime(x265Reopen) < Math.max(mtime(gypFile), ...reopenSources.map(mtime)))) {
  process.stderr.write('[setup] building the test-only x265 re-open counter\n');
  mkdirSync(dirname(x265Reopen), { recursive: true });
  run('gcc', [...gccFlags.filter((f) => f !== '-shared' && f !== '-fPIC'), '-o', x265Reopen, ...reopenSources,
    ...pkgConfig('gstreamer-1.0')], native);
}

// The segfaulting element (native/test-crash-element/) for test/faults/native-host-isolation.test.ts, which puts its
// folder on GST_PLUGIN_PATH. A folder of its own: GStreamer would try to load any other .so beside it as a plugin.
const crashSources = listed('test_crash_element_sources');
if (test && (force || mtime(crashPlugin) < Math.max(mtime(gypFile), ...crashSources.map(mtime)))) {
  process.stderr.write('[setup] building the test-only segfaulting GStreamer element\n');
  mkdirSync(dirname(crashPlugin), { recursive: true });
  run('gcc', [...gccFlags, '-o', crashPlugin, ...crashSources, ...pkgConfig('gstreamer-1.0', 'gstreamer-base-1.0')], native);
}
