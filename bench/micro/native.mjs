// Native single-core references for the micro stages: OpenSSL (the same AES-NI/VAES and SHA-NI
// code restic's Go assembly competes with) and the zstd CLI on the same inputs as the WASM
// stages. Missing tools are skipped (apt-get install -y zstd for zstd).
import fs from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';

const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function opensslSpeed(alg) {
  // -mr: "+F:<n>:<alg>:<bytes/s for each size>"; one size, 1 MiB.
  const out = execFileSync('openssl', ['speed', '-evp', alg, '-bytes', '1048576', '-seconds', '2', '-mr'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = out.split('\n').find((l) => l.startsWith('+F:'));
  return Number(line.split(':')[3]) / 1e6;
}

function opensslPoly1305(input) {
  // No `openssl speed` for Poly1305; time `openssl mac` over a 1 GiB file in the page cache
  // and count user CPU only (the read is system time).
  const key = Buffer.alloc(32, 0x5a).toString('hex');
  const file = `${input}.poly1305-1g`;
  const piece = fs.readFileSync(input);
  const fd = fs.openSync(file, 'w');
  for (let n = 0; n < 1024 << 20; n += piece.length) fs.writeSync(fd, piece, 0, Math.min(piece.length, (1024 << 20) - n));
  fs.closeSync(fd);
  const size = fs.statSync(file).size;
  const r = spawnSync('/usr/bin/time', ['-f', '%U', 'openssl', 'mac', '-macopt', `hexkey:${key}`, '-in', file, 'Poly1305'], { encoding: 'utf8' });
  const user = Number(r.stderr.trim().split('\n').pop());
  fs.rmSync(file, { force: true });
  return user > 0 ? size / 1e6 / user : undefined;
}

function zstdBench(file) {
  // "-3   <compressed> (<ratio>) <c> MB/s <d> MB/s  <name>" with -q; 1 MiB blocks like chunks.
  const out = execFileSync('zstd', ['-b3', '-i3', '-B1MiB', '-q', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const m = out.replace(/\r/g, '\n').match(/\(\s*([\d.]+)\)\s+([\d.]+) MB\/s\s+([\d.]+) MB\/s/);
  return m ? { ratio: Number(m[1]), compress: Number(m[2]), decompress: Number(m[3]) } : undefined;
}

/** Results keyed by the Node stage names they compare with (bench/micro/stages.ts). */
export function nativeReferences({ randomFile, textFile }) {
  const out = [];
  const add = (stage, tool, mbps, note) => mbps && out.push({ stage, tool, mbps, ...(note ? { note } : {}) });
  if (have('openssl')) {
    const v = execFileSync('openssl', ['version'], { encoding: 'utf8' }).trim().split(' ').slice(0, 2).join(' ');
    add('SHA-256 (primitives), 1 MiB messages', `${v} speed`, opensslSpeed('sha256'));
    add('AES-256-CTR (primitives), 1 MiB messages', `${v} speed`, opensslSpeed('aes-256-ctr'));
    if (fs.existsSync('/usr/bin/time')) add('Poly1305 (WASM), 1 MiB messages', `${v} mac (user CPU)`, opensslPoly1305(randomFile));
  }
  if (have('zstd')) {
    const v = execFileSync('zstd', ['--version'], { encoding: 'utf8' }).match(/v[\d.]+/)?.[0] ?? '';
    const t = zstdBench(textFile);
    const r = zstdBench(randomFile);
    if (t) add('zstd -3 compress (WASM), text, 1 MiB blocks', `zstd ${v} -b3`, t.compress, `ratio ${t.ratio}`);
    if (r) add('zstd -3 compress (WASM), random, 1 MiB blocks', `zstd ${v} -b3`, r.compress, `ratio ${r.ratio}`);
    if (t) add('zstd decompress (WASM), text, 1 MiB blocks', `zstd ${v} -b3`, t.decompress);
  }
  return out;
}
