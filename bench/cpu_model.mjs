// The CPU model line of /proc/cpuinfo, for the top of every benchmark report.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export function cpuModel() {
  return /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
}

/** What a bench report says of its run: {cpu, cores, date, load: [at the start, now]}. */
export function runHeader(started, loadAtStart) {
  return { cpu: cpuModel(), cores: os.cpus().length, date: started.toISOString(), load: [loadAtStart, os.loadavg()[0]] };
}
