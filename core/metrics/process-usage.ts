/**
 * CPU time and resident memory of another process, from /proc: what process_cpu_seconds_total and
 * process_resident_memory_bytes say of the API process, said of each engine host. Read at scrape time; a
 * process that has just ended (or is a zombie, with no memory left) gives null and simply has no series.
 */
import { readFileSync } from 'node:fs';

/**
 * /proc/<pid>/stat counts CPU time in clock ticks of USER_HZ, which the Linux ABI fixes at 100 (sysconf(_SC_CLK_TCK)
 * answers 100 on every architecture Debian ships; Node has no sysconf to ask).
 */
const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcessUsage {
  /** User and system CPU time since the process started. */
  cpuSeconds: number;
  residentBytes: number;
}

export function processUsage(pid: number, procRoot = '/proc'): ProcessUsage | null {
  let stat: string;
  let status: string;
  try {
    stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
    status = readFileSync(`${procRoot}/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses: count fields
  // from the last ')'. What follows starts at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  // VmRSS is in kB (kibibytes); the kernel omits it for a zombie.
  const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!rss || !Number.isFinite(ticks)) return null;
  return { cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND, residentBytes: Number(rss[1]) * 1024 };
}
