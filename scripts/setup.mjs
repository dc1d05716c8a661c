#!/usr/bin/env node
// Sets up whatever is missing, and nothing else: Debian packages, npm packages, the native build, the
// TypeScript build. Idempotent and quick when everything is in place; `npm start` and `npm test` run it first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => process.stderr.write(`[setup] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.status !== 0) {
    log(`${cmd} ${args.join(' ')} failed with exit ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

// --test adds what the tests and benchmarks need (real peers, measuring tools, a browser) to the run-time list.
const lists = ['scripts/debian-packages.txt', ...(process.argv.includes('--test') ? ['scripts/debian-packages-test.txt'] : [])];

function missingDebianPackages() {
  const wanted = lists.flatMap((list) => readFileSync(join(root, list), 'utf8')
    .split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')));
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...wanted], { encoding: 'utf8' });
  const installed = new Set(r.stdout.split('\n').filter((l) => /\sii\s*$/.test(l)).map((l) => l.split(' ')[0]));
  return wanted.filter((p) => !installed.has(p));
}

function debian() {
  if (!existsSync('/usr/bin/dpkg-query')) return log(`not a Debian system: install the packages in ${lists.join(' and ')} yourself`);
  const missing = missingDebianPackages();
  if (missing.length === 0) return;
  log(`installing Debian packages: ${missing.join(' ')}`);
  const sudo = process.getuid && process.getuid() !== 0 ? ['sudo'] : [];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (sudo.length ? run('sudo', ['apt-get', ...args], { env }) : run('apt-get', args, { env }));
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', ...missing]);
}

function newest(paths) {
  let t = 0;
  for (const p of paths) if (existsSync(p)) t = Math.max(t, statSync(p).mtimeMs);
  return t;
}

function npmPackages() {
  const stamp = join(root, 'node_modules/.package-lock.json');
  if (existsSync(stamp) && newest([stamp]) >= newest([join(root, 'package-lock.json'), join(root, 'package.json')])) return;
  log('installing npm packages');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

debian();
npmPackages();
// --test also builds the test-only fake camera addon (native/test-addon/).
run(process.execPath, [join(root, 'scripts/build-native.mjs'), ...(process.argv.includes('--test') ? ['--test'] : [])]);
run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
