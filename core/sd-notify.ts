/**
 * sd_notify(3) for a Type=notify systemd unit, without a native dependency. Node has no AF_UNIX datagram socket,
 * so systemd-notify(1) (always there where systemd is) sends the message; the unit sets NotifyAccess=all because the
 * sender is our child, not the main PID. Since systemd 246 systemd-notify waits until the manager has processed the
 * message (a barrier), so the old race of a sender that exits before systemd reads its cgroup is gone
 * (Debian 12 has 252). Without NOTIFY_SOCKET (not under systemd) this does nothing. docs/operations.md.
 */
import { spawn } from 'node:child_process';

export function sdNotify(state: string, log: { warn(obj: object, msg: string): void }, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!env.NOTIFY_SOCKET) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn('systemd-notify', [state], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', (err) => {
      log.warn({ err, state }, 'sd_notify: cannot run systemd-notify');
      resolve(false);
    });
    child.on('exit', (code) => {
      if (code !== 0) log.warn({ code, state, stderr: stderr.trim() }, 'sd_notify: systemd-notify failed');
      resolve(code === 0);
    });
  });
}
