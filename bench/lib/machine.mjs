// What the numbers were measured on.
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { ROOT } from './config.mjs';

const tryRun = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
};

export function machineInfo(cfg) {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const field = (name) => cpuinfo.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim();
  const flags = field('flags') ?? '';
  const chromium = tryRun(cfg.chromium, ['--version']);
  return {
    cores: os.cpus().length,
    cpuModel: field('model name') ?? os.cpus()[0]?.model,
    cpuFamily: field('cpu family'),
    cpuModelNumber: field('model'),
    cpuFeatures: ['aes', 'vaes', 'sha_ni', 'avx2', 'avx512f'].filter((f) => flags.split(' ').includes(f)),
    ramGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    restic: tryRun(cfg.restic, ['version']),
    cairn: tryRun(process.execPath, [cfg.cairn, 'version']),
    chromium: chromium?.split('\n')[0],
    openssl: tryRun('openssl', ['version']),
    zstd: tryRun('zstd', ['--version']),
    git: tryRun('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']),
    gitDirty: (tryRun('git', ['-C', ROOT, 'status', '--porcelain', '--', 'core', 'cli']) ?? '').length > 0,
    hostname: os.hostname(),
  };
}

export function machineLine(m) {
  return (
    `${m.cores} cores ${m.cpuModel}${m.cpuFamily ? ` (family ${m.cpuFamily} model ${m.cpuModelNumber})` : ''} [${m.cpuFeatures.join(' ')}], ${m.ramGiB} GiB RAM, ${m.kernel}\n` +
    `node ${m.node} · ${m.restic ?? 'restic ?'} · ${m.cairn ?? 'cairn ?'} (git ${m.git}${m.gitDirty ? ', core/cli modified' : ''})${m.chromium ? ` · ${m.chromium}` : ''}`
  );
}
