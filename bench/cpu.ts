// CPU time from /proc, for benches that say where the CPU went (docs/scale.md's model).
import fs from 'node:fs';
import path from 'node:path';

/** CPU seconds a process used (utime + stime, and with children: those it has waited for), from /proc. */
export function cpuSeconds(pid: number, withChildren: boolean): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const v = f.slice(f.lastIndexOf(')') + 2).split(' ').map(Number);
    // Fields 14 to 17 of proc(5), counted from after the command's closing parenthesis (field 3 is v[0]).
    const ticks = v[11]! + v[12]! + (withChildren ? v[13]! + v[14]! : 0);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** A PostgreSQL server's CPU: its postmaster (of the data folder) with its exited backends, plus the backends still running. */
export function databaseCpu(dataDir: string): number {
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let sum = cpuSeconds(postmaster, true);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(f.slice(f.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) sum += cpuSeconds(Number(d), true);
    } catch {}
  }
  return sum;
}

/** A process's own user and system CPU seconds, apart. */
export function userSystemSeconds(pid: number): { user: number; system: number } {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const v = f.slice(f.lastIndexOf(')') + 2).split(' ').map(Number);
    return { user: v[11]! / 100, system: v[12]! / 100 };
  } catch {
    return { user: 0, system: 0 };
  }
}
