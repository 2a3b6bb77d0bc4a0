// The CPU model line of /proc/cpuinfo, for the top of every benchmark report.
import { readFileSync } from 'node:fs';

export function cpuModel() {
  return /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown';
}
