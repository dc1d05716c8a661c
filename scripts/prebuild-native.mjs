#!/usr/bin/env node
// `npm run native:prebuild`: the N-API addon (prebuildify: node.node, an N-API build that serves every Node ≥ 20), the
// native engine host (encoderd-host, docs/engine-host.md) and the standalone GStreamer plugin for linux-x64 and
// linux-arm64, into native/prebuilds/linux-<arch>/, where node-gyp-build finds the addon and core/paths.ts the host
// (a deployed tree carries prebuilds and no build/, so nothing is compiled there).
//
// Builds in a copy of native/ under the temp dir: native/build, which the checkout's own tests load, is never touched.
// The other architecture is cross-compiled with Debian's cross gcc (gcc-aarch64-linux-gnu or gcc-x86-64-linux-gnu)
// against a sysroot of Debian's GStreamer dev packages for that architecture, unpacked by mmdebstrap (no dpkg
// multiarch on the build host: docs/operations.md, "arm64", says why).
//
//   node scripts/prebuild-native.mjs [--arch x64,arm64] [--qemu-check]
//   ENCODERD_SYSROOT_<ARCH> (e.g. ENCODERD_SYSROOT_ARM64): a sysroot to use; default /tmp/encoderd-sysroot-<arch>,
//   made with mmdebstrap when missing. --qemu-check: load the foreign addon under qemu-user with the sysroot's Node
//   and encode 60 frames of H.264 into a .mkv, decoded by ffprobe.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch as hostArch, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const native = join(root, 'native');
const argv = process.argv.slice(2);
const archArg = argv.includes('--arch') ? argv[argv.indexOf('--arch') + 1] : 'x64,arm64';
const qemuCheck = argv.includes('--qemu-check');
const log = (msg) => process.stderr.write(`[prebuild] ${msg}\n`);

const ARCH = {
  x64: { triplet: 'x86_64-linux-gnu', deb: 'amd64', file: 'x86-64', qemu: 'qemu-x86_64', crossPkg: 'gcc-x86-64-linux-gnu' },
  arm64: { triplet: 'aarch64-linux-gnu', deb: 'arm64', file: 'ARM aarch64', qemu: 'qemu-aarch64', crossPkg: 'gcc-aarch64-linux-gnu' },
};
// What the addon, the host and the plugin link against (binding.gyp, scripts/build-native.mjs); nodejs and the plugins
// only for --qemu-check.
const SYSROOT_PACKAGES = ['libc6-dev', 'libgstreamer1.0-dev', 'libgstreamer-plugins-base1.0-dev', 'libgstrtspserver-1.0-dev',
  'libcodec2-dev', 'libjson-glib-dev', 'nodejs', 'gstreamer1.0-plugins-base', 'gstreamer1.0-plugins-good', 'gstreamer1.0-plugins-ugly'];
const GST_PLUGIN_MODULES = ['gstreamer-1.0', 'gstreamer-base-1.0', 'gstreamer-rtp-1.0', 'gstreamer-audio-1.0', 'gstreamer-video-1.0', 'codec2'];
// The native host's sources and modules, as scripts/build-native.mjs builds it.
const gyp = JSON.parse(readFileSync(join(native, 'binding.gyp'), 'utf8'));
const HOST_SOURCES = ['host_sources', 'gst_core_sources', 'element_sources'].flatMap((name) => gyp.variables[name]);
const HOST_MODULES = [...gyp.variables.gst_modules.split(' '), 'gstreamer-base-1.0', 'gstreamer-rtsp-1.0', 'json-glib-1.0'];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`);
  return r;
}
const output = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
};
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function sysrootFor(arch) {
  const dir = process.env[`ENCODERD_SYSROOT_${arch.toUpperCase()}`] || join(tmpdir(), `encoderd-sysroot-${arch}`);
  const pc = (name) => existsSync(join(dir, 'usr/lib', ARCH[arch].triplet, 'pkgconfig', name));
  if (pc('gstreamer-1.0.pc') && pc('json-glib-1.0.pc')) return dir;
  if (existsSync(dir)) throw new Error(`${dir} lacks what the native host builds with (libjson-glib-dev): remove it to have it made again`);
  if (!have('mmdebstrap')) throw new Error(`no sysroot for ${arch} at ${dir}, and no mmdebstrap to make one (apt-get install mmdebstrap)`);
  log(`making the ${arch} sysroot ${dir} (mmdebstrap, extract only: no ${arch} code runs)`);
  // Extract only: the packages are unpacked, no maintainer script runs, so no emulation is needed.
  run('mmdebstrap', ['--variant=extract', `--arch=${ARCH[arch].deb}`, `--include=${SYSROOT_PACKAGES.join(',')}`, 'bookworm', dir,
    'deb http://deb.debian.org/debian bookworm main', 'deb http://deb.debian.org/debian-security bookworm-security main']);
  return dir;
}

function toolchainEnv(arch) {
  const nodedir = process.env.npm_config_nodedir
    || (existsSync(join(dirname(process.execPath), '../include/node/node_api.h')) ? join(dirname(process.execPath), '..') : null);
  // No network for header downloads: build against the headers of the Node that runs this script (N-API headers are
  // the same for every architecture).
  const env = { ...process.env, ...(nodedir ? { npm_config_nodedir: nodedir } : {}),
    PREBUILD_NODE_GYP: join(root, 'node_modules/.bin/node-gyp') };
  if (arch === hostArch()) return { env, cc: ['gcc'], strip: 'strip' };
  const t = ARCH[arch].triplet;
  if (!have(`${t}-gcc`)) throw new Error(`no ${t}-gcc: apt-get install ${ARCH[arch].crossPkg} g++-${ARCH[arch].crossPkg.slice(4)}`);
  const sysroot = sysrootFor(arch);
  const pc = [`${sysroot}/usr/lib/${t}/pkgconfig`, `${sysroot}/usr/share/pkgconfig`].join(':');
  Object.assign(env, {
    CC: `${t}-gcc --sysroot=${sysroot}`, CXX: `${t}-g++ --sysroot=${sysroot}`, LINK: `${t}-g++ --sysroot=${sysroot}`,
    AR: `${t}-ar`, PKG_CONFIG_SYSROOT_DIR: sysroot, PKG_CONFIG_LIBDIR: pc,
  });
  return { env, cc: [`${t}-gcc`, `--sysroot=${sysroot}`], strip: `${t}-strip`, sysroot };
}

function build(arch) {
  const tc = toolchainEnv(arch);
  const work = mkdtempSync(join(tmpdir(), `encoderd-prebuild-${arch}-`));
  try {
    cpSync(join(native, 'binding.gyp'), join(work, 'binding.gyp'));
    cpSync(join(native, 'src'), join(work, 'src'), { recursive: true });
    cpSync(join(native, 'host'), join(work, 'host'), { recursive: true });
    log(`${arch}: addon`);
    run(process.execPath, [join(root, 'node_modules/prebuildify/bin.js'), '--napi', `--target=${process.versions.node}`, '--strip', `--strip-bin=${tc.strip}`,
      `--arch=${arch}`, '--platform=linux', `--out=${work}`, '.'], { cwd: work, env: tc.env });
    const dest = join(native, 'prebuilds', `linux-${arch}`);
    mkdirSync(dest, { recursive: true });
    cpSync(join(work, 'prebuilds', `linux-${arch}`), dest, { recursive: true });

    log(`${arch}: standalone GStreamer plugin`);
    const flags = output('pkg-config', ['--cflags', '--libs', ...GST_PLUGIN_MODULES], { env: tc.env }).split(/\s+/);
    const elements = readdirSync(join(work, 'src/elements')).filter((f) => f.endsWith('.c')).map((f) => join(work, 'src/elements', f));
    run(tc.cc[0], [...tc.cc.slice(1), '-shared', '-fPIC', '-O2', '-Wall', '-Wno-unused-parameter', '-std=gnu11',
      '-o', join(dest, 'libgstencoderd.so'), ...elements, ...flags]);
    run(tc.strip, [join(dest, 'libgstencoderd.so')]);

    log(`${arch}: native engine host`);
    const hostFlags = output('pkg-config', ['--cflags', '--libs', ...HOST_MODULES], { env: tc.env }).split(/\s+/);
    run(tc.cc[0], [...tc.cc.slice(1), '-O2', '-Wall', '-Wno-unused-parameter', '-std=gnu11', '-o', join(dest, 'encoderd-host'),
      ...HOST_SOURCES.map((f) => join(work, f)), ...hostFlags, '-lm']);
    run(tc.strip, [join(dest, 'encoderd-host')]);

    for (const f of readdirSync(dest)) {
      const desc = output('file', ['-b', join(dest, f)]);
      if (!desc.includes(ARCH[arch].file)) throw new Error(`${f} is not ${ARCH[arch].file}: ${desc}`);
      log(`${arch}: native/prebuilds/linux-${arch}/${f} (${statSync(join(dest, f)).size} bytes): ${desc.split(',').slice(0, 2).join(',')}`);
    }
    if (qemuCheck && arch !== hostArch()) check(arch, tc.sysroot, join(dest, 'node.node'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The foreign addon under qemu-user: the sysroot's Node loads it and it encodes 60 frames that ffprobe decodes. */
function check(arch, sysroot, addon) {
  if (!have(ARCH[arch].qemu)) throw new Error(`--qemu-check needs ${ARCH[arch].qemu} (apt-get install qemu-user)`);
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-qemu-'));
  const mkv = join(dir, 'ball.mkv');
  writeFileSync(join(dir, 'check.js'), `
const a = require(${JSON.stringify(addon)});
a.init();
console.log(process.arch, process.version, a.gstVersion(), 'x264enc', a.hasElement('x264enc'), 'codec2enc', a.hasElement('codec2enc'));
setInterval(() => {}, 1000);
const p = new a.Pipeline('videotestsrc num-buffers=60 pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! x264enc speed-preset=ultrafast tune=zerolatency ! h264parse ! matroskamux ! filesink location=${mkv}',
  (m) => { if (m.type === 'eos' || m.type === 'error') p.setState('null', 5000).then(() => process.exit(m.type === 'eos' ? 0 : 1)); });
p.setState('playing', 60000).catch((e) => { console.error(e.code, e.message); process.exit(1); });
`);
  try {
    // No plugin scanner child: it would be a foreign binary exec'd without binfmt_misc.
    run(ARCH[arch].qemu, ['-L', sysroot, join(sysroot, 'usr/bin/node'), join(dir, 'check.js')],
      { env: { ...process.env, GST_REGISTRY_FORK: 'no', GST_REGISTRY: join(dir, 'registry.bin') } });
    const probe = output('ffprobe', ['-v', 'error', '-count_frames', '-show_entries', 'stream=codec_name,width,height,nb_read_frames', '-of', 'csv=p=0', mkv]);
    log(`${arch}: under ${ARCH[arch].qemu}, 60 frames encoded; ffprobe: ${probe}`);
    if (probe !== 'h264,320,240,60') throw new Error(`unexpected ffprobe result ${probe}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

try {
  for (const arch of archArg.split(',')) {
    if (!ARCH[arch]) throw new Error(`unknown arch ${arch} (x64, arm64)`);
    build(arch);
  }
} catch (err) {
  log(`failed: ${err.message}`);
  process.exit(1);
}
