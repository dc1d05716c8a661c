/**
 * deploy/systemd: the unit passes `systemd-analyze verify` with no warning, carries the hardening docs/operations.md
 * describes, the service speaks sd_notify to a fake NOTIFY_SOCKET (READY=1 when healthz answers 200, STOPPING=1 on
 * SIGTERM), and scripts/install-systemd.sh installs a tree that runs.
 *
 * verify checks that ExecStart's program exists and is executable, so it runs on a copy of the unit whose Node is
 * the one running this test and whose tree is this checkout (the shipped unit names /usr/bin/node and /opt/encoderd).
 * systemd-analyze and systemd-notify come with Debian's systemd package (scripts/debian-packages-test.txt); the fake
 * notify socket is a Python listener, since Node has no AF_UNIX datagram socket.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../core/config/schema';
import { freePort, httpsCall, ROOT, run, waitFor } from '../helpers/service';

const UNIT = join(ROOT, 'deploy/systemd/encoderd.service');
const unitText = readFileSync(UNIT, 'utf8');

/** The unit's [Service] settings; a key given twice keeps every value. */
function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (m) out.set(m[1], [...(out.get(m[1]) ?? []), m[2]]);
  }
  return out;
}

async function verify(text: string): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-unit-'));
  const file = join(dir, 'encoderd.service');
  writeFileSync(file, text.replace('/usr/bin/node', process.execPath).replaceAll('/opt/encoderd', ROOT));
  const r = await run('systemd-analyze', ['verify', file]);
  rmSync(dir, { recursive: true, force: true });
  return { code: r.code, output: (r.stdout + r.stderr).trim() };
}

describe('deploy/systemd', () => {
  it('systemd-analyze verify: exit 0 and not one warning', async () => {
    expect(await verify(unitText)).toEqual({ code: 0, output: '' });
  });

  it('verify bites: an unknown key is reported (exit 0 but a warning), a missing program fails', async () => {
    const unknown = await verify(unitText.replace('[Service]\n', '[Service]\nProtectHomes=yes\n'));
    expect(unknown.output).toMatch(/Unknown key 'ProtectHomes'/);
    const missing = await verify(unitText.replace('/usr/bin/node ', '/nonexistent/node '));
    expect(missing.code).not.toBe(0);
  });

  it('Type=notify, restarts on failure, its own user and state directory, the hardening asked for', () => {
    const s = settings(unitText);
    const one = (k: string) => s.get(k)?.join(' | ');
    expect(one('Type')).toBe('notify');
    expect(one('NotifyAccess')).toBe('all');
    expect(one('Restart')).toBe('on-failure');
    expect(one('User')).toBe('encoderd');
    expect(one('StateDirectory')).toBe('encoderd');
    expect(s.get('Environment')).toContain('ENCODERD_DATA_DIR=%S/encoderd');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ProtectHome')).toBe('yes');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('CapabilityBoundingSet')).toBe('');
    expect(one('DevicePolicy')).toBe('closed');
    expect(s.get('DeviceAllow')).toEqual(['char-video4linux rw', 'char-alsa rw']);
    expect(one('SupplementaryGroups')).toBe('video audio');
    // SIGTERM to the main process only, which finalises recordings before ending its engine hosts.
    expect(one('KillMode')).toBe('mixed');
    const stopSec = Number(/^(\d+)s$/.exec(one('TimeoutStopSec') ?? '')?.[1]);
    const { startTimeoutMs, stopTimeoutMs } = configSchema.properties;
    expect(stopSec).toBeGreaterThanOrEqual((startTimeoutMs.default + stopTimeoutMs.default + 5000 + 5000) / 1000);
  });

  it('sd_notify: READY=1 once healthz answers 200, STOPPING=1 on SIGTERM, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-notify-'));
    const socket = join(dir, 'notify.sock');
    const listener = spawn('python3', ['-u', '-c', `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("listening", flush=True)
while True:
    print(s.recv(4096).decode().replace("\\n", " "), flush=True)
`, socket], { stdio: ['ignore', 'pipe', 'inherit'] });
    let received = '';
    listener.stdout.on('data', (d: Buffer) => { received += d.toString(); });
    const port = await freePort();
    let service: ReturnType<typeof spawn> | undefined;
    try {
      await waitFor(() => received.includes('listening'));
      service = spawn(process.execPath, [join(ROOT, 'bin/encoderd'), '--port', String(port), '--host', '127.0.0.1',
        '--web-port', '0', '--data-dir', join(dir, 'data')], { env: { ...process.env, NOTIFY_SOCKET: socket }, stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => service!.on('exit', (code) => resolve(code)));
      await waitFor(() => received.includes('READY=1'), 20000);
      // READY=1 is sent after the service is ready: healthz answers 200 from then on.
      expect((await httpsCall(port, 'GET', '/svc/healthz')).status).toBe(200);
      expect(received).not.toContain('STOPPING=1');
      service.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(received).toContain('STOPPING=1');
    } finally {
      if (service && service.exitCode === null) service.kill('SIGKILL');
      listener.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('install-systemd.sh --dry-run prints the steps, user and systemctl included, and changes nothing', async () => {
    const r = await run('sh', [join(ROOT, 'scripts/install-systemd.sh'), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('+ install -D -m 0644 ' + UNIT + ' /etc/systemd/system/encoderd.service');
    expect(r.stdout).toMatch(/\+ .*deploy\/stage-tree\.sh \/opt\/encoderd\.new/);
    expect(r.stdout).toContain('+ systemctl enable --now encoderd.service');
    expect(existsSync('/opt/encoderd.new')).toBe(false);
  });

  it('install-systemd.sh with DESTDIR installs the unit, an env file and a production tree that runs', async () => {
    const dest = mkdtempSync(join(tmpdir(), 'encoderd-destdir-'));
    const r = await run('sh', [join(ROOT, 'scripts/install-systemd.sh')], { env: { DESTDIR: dest }, timeoutMs: 60000 });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dest, 'etc/systemd/system/encoderd.service'), 'utf8')).toBe(unitText);
    expect(existsSync(join(dest, 'etc/encoderd/encoderd.env'))).toBe(true);
    const tree = join(dest, 'opt/encoderd');
    expect(existsSync(join(tree, 'node_modules/fastify'))).toBe(true);
    expect(existsSync(join(tree, 'node_modules/vitest'))).toBe(false);
    expect(existsSync(join(tree, 'test'))).toBe(false);
    const port = await freePort();
    const child = spawn(process.execPath, [join(tree, 'bin/encoderd'), '--port', String(port), '--host', '127.0.0.1',
      '--web-port', '0', '--data-dir', join(dest, 'var/lib/encoderd')], { stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitFor(async () => (await httpsCall(port, 'GET', '/svc/healthz')).status === 200, 20000);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dest, { recursive: true, force: true });
    }
  }, 90_000);
});
