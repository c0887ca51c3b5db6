// `BENCH_SECTIONS=scale-app npm run bench`: the browser at a home folder's scale, beside the CLI
// and restic. The scale repository is made once (./make-repo.mjs: the home-like tree, restic's two
// snapshots in a radosgw bucket), opened in the built app (./app-open.mjs: cold and warm, the
// newest snapshot's root, the offline cache's fill, the tab's memory), then the same tree backed up
// from the page and by restic and cairn's CLI (./app-backup.mjs: first and unchanged, wall, CPU and
// memory, restic check). One JSON result with both parts.
//   CAIRN_S3_ENV   a radosgw's env.json (scripts/s3/start.sh); without it a throwaway one is started
//   SCALE_FILES    the tree's files (200000); BENCH_RUNS: runs of the open (3); BENCH_OUT: the result file
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILES = Number(process.env.SCALE_FILES ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function run(script, args, env) {
  const r = spawnSync('node', [path.join(ROOT, 'bench/scale', script), ...args], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status})`);
}

/** A radosgw for the section: CAIRN_S3_ENV's, or a throwaway one stopped at the end. */
function radosgw() {
  if (process.env.CAIRN_S3_ENV) return { env: process.env.CAIRN_S3_ENV, stop() {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-s3-'));
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/s3/start.sh'), '--dir', dir, '--origin', '*', '--quiet'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('radosgw did not start');
  return {
    env: path.join(dir, 'env.json'),
    stop: () => spawnSync('bash', [path.join(ROOT, 'scripts/s3/stop.sh'), '--dir', dir, '--rm'], { stdio: 'inherit' }),
  };
}

export async function runScaleApp() {
  const s3 = radosgw();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-scale-app-'));
  try {
    const env = { CAIRN_S3_ENV: s3.env, SCALE_FILES: String(FILES) };
    run('make-repo.mjs', [String(FILES)], env);
    run('app-open.mjs', [String(RUNS)], { ...env, SCALE_OUT: path.join(tmp, 'open.json') });
    const tree = path.join(process.env.BENCH_DATA ?? path.join(ROOT, 'bench/data'), 'scale', `home-${FILES}`);
    run('app-backup.mjs', [], { ...env, SCALE_TREE: tree, SCALE_NO_BUILD: '1', SCALE_OUT: path.join(tmp, 'backup.json') });
    const read = (f) => JSON.parse(fs.readFileSync(path.join(tmp, f), 'utf8'));
    const date = new Date().toISOString().slice(0, 10);
    const out = process.env.BENCH_OUT ?? path.join(ROOT, 'bench/results', `scale-app-${FILES}-files-${date}.json`);
    fs.writeFileSync(out, JSON.stringify({ files: FILES, open: read('open.json'), backup: read('backup.json') }, null, 2) + '\n');
    process.stderr.write(`scale-app: ${path.relative(ROOT, out)}\n`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    s3.stop();
  }
}
