// The CPU model, for the top of every benchmark report.
import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * The "model name" line of /proc/cpuinfo with the "cpu family" and "model"
 * numbers after it where the file has them: a virtual machine often names
 * only the vendor's line ("AMD EPYC"), and the numbers tell its generations
 * apart (an AMD EPYC of family 25 is model 1 as a Zen 3, model 17 as a Zen 4).
 */
export function cpuModel(cpuinfo = readCpuinfo()) {
  const field = (name) => new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(cpuinfo)?.[1].trim();
  const name = field('model name') || os.cpus()[0]?.model || 'unknown';
  const family = field('cpu family');
  const model = field('model');
  return family && model ? `${name} (family ${family}, model ${model})` : name;
}

function readCpuinfo() {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return '';
  }
}

/** What a bench report says of its run: {cpu, cores, date, load: [at the start, now]}. */
export function runHeader(started, loadAtStart) {
  return { cpu: cpuModel(), cores: os.cpus().length, date: started.toISOString(), load: [loadAtStart, os.loadavg()[0]] };
}
