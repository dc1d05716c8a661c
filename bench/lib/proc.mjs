/** What /proc says about a process: CPU seconds (all threads, user + system), resident memory, its children. */
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

// Linux reports utime/stime in clock ticks; USER_HZ is 100 on every architecture Debian ships.
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may contain spaces and parentheses: fields start after the last ')'.
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of pid, in seconds. Fields 14 and 15 of stat; index 11 and 12 after the name. */
export function cpuSeconds(pid) {
  const f = statFields(pid);
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/** VmRSS and VmHWM (peak) of pid, in MB. */
export function memoryMb(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** Pids whose parent is ppid, with their argv. */
export function childrenOf(ppid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (Number(statFields(name)[1]) !== ppid) continue;
      out.push({ pid: Number(name), argv: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      /* the process ended while we looked */
    }
  }
  return out;
}

/** The machine the numbers come from. */
export function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const run = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    nproc: Number(run('nproc', [])),
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
    memory_gb: Math.round(Number(/^MemTotal:\s+(\d+)/m.exec(meminfo)?.[1] ?? 0) / 1048576),
    kernel: run('uname', ['-r']),
    gstreamer: run('gst-launch-1.0', ['--version']).split('\n')[1] ?? 'unknown',
    node: process.version,
  };
}
