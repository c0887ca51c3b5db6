#!/usr/bin/env node
// The scale repository of issue 44 in a radosgw bucket, written by restic: the home-like tree
// (./home-tree.mjs) backed up, then 1 % of it changed and backed up again (two snapshots; or
// more, each after another 1 % change). Made once; a later run finds the snapshots and only
// prints where the repository is.
//   CAIRN_S3_ENV=/tmp/dev-s3/env.json node bench/scale/make-repo.mjs [files=200000] [snapshots=2]
// The repository has a bucket of its own (SCALE_BUCKET, default cairn-scale, made here with CORS
// for any origin, so the bench's page may be served from any port) on the radosgw of CAIRN_S3_ENV.
// Env: SCALE_PREFIX (default home-<files>, or home-<files>-<n>-snapshots), BENCH_DATA (default bench/data),
// BENCH_RESTIC (default /usr/bin/restic). Prints the location as JSON on its last line.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SCALE_PASSWORD = 'cairn-scale-bench';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Where the scale repository of `files` files lives (the bucket of CAIRN_S3_ENV, its own prefix). */
export function scaleLocation(files = 200_000, snapshots = 2) {
  const envPath = process.env.CAIRN_S3_ENV;
  if (!envPath) throw new Error('CAIRN_S3_ENV must name the radosgw env.json (e.g. /tmp/dev-s3/env.json)');
  const env = { ...JSON.parse(fs.readFileSync(envPath, 'utf8')), bucket: process.env.SCALE_BUCKET ?? 'cairn-scale', origin: '*' };
  const prefix = process.env.SCALE_PREFIX ?? (snapshots === 2 ? `home-${files}` : `home-${files}-${snapshots}-snapshots`);
  return { env, prefix, restic: `s3:${env.endpoint}/${env.bucket}/${prefix}`, password: SCALE_PASSWORD };
}

function restic(loc, args, opts = {}) {
  const bin = process.env.BENCH_RESTIC ?? '/usr/bin/restic';
  const t = Date.now();
  const r = spawnSync(bin, ['-r', loc.restic, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 28,
    env: {
      ...process.env,
      RESTIC_PASSWORD: loc.password,
      AWS_ACCESS_KEY_ID: loc.env.accessKeyId,
      AWS_SECRET_ACCESS_KEY: loc.env.secretAccessKey,
      AWS_DEFAULT_REGION: loc.env.region,
    },
    ...opts,
  });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`restic ${args[0]} failed (exit ${r.status})`);
  console.error(`restic ${args.join(' ')}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return r;
}

/** Creates `env.bucket` on the endpoint (nothing happens when it is there already). */
export function createBucket(env) {
  const tmp = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'scale-s3-')), 'env.json');
  fs.writeFileSync(tmp, JSON.stringify(env));
  const r = spawnSync(process.execPath, [path.join(HERE, '..', '..', 'scripts', 's3', 's3-admin.mjs'), 'create-bucket', tmp], { stdio: 'inherit' });
  fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`could not create bucket ${env.bucket}`);
}

/**
 * The scale repository of `files` files and `snapshots` snapshots (made unless the bucket has it):
 * the tree, then each later snapshot after a 1 % change (home-tree.mjs modify, seeds 1, 2, …).
 */
export function makeScaleRepo(files = 200_000, snapshots = 2) {
  const loc = scaleLocation(files, snapshots);
  createBucket(loc.env);
  const have = restic(loc, ['snapshots', '--json', '--no-lock'], { allowFail: true });
  const snaps = have.status === 0 ? JSON.parse(have.stdout || '[]') : undefined;
  if (snaps?.length === snapshots) return loc;
  if (snaps) throw new Error(`${loc.restic} holds ${snaps.length} snapshots, not ${snapshots}: remove the prefix and run again`);
  const dir = path.resolve(process.env.BENCH_DATA ?? path.join(HERE, '..', 'data'), 'scale', `home-${files}`);
  const gen = (...a) => {
    const r = spawnSync(process.execPath, [path.join(HERE, 'home-tree.mjs'), ...a], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`home-tree.mjs ${a[0]} failed`);
  };
  gen('make', dir, String(files));
  restic(loc, ['init']);
  restic(loc, ['backup', '-q', '--host', 'home-pc', dir]);
  for (let seed = 1; seed < snapshots; seed++) {
    gen('modify', dir, String(seed));
    restic(loc, ['backup', '-q', '--host', 'home-pc', dir]);
  }
  return loc;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const loc = makeScaleRepo(Number(process.argv[2] ?? 200_000), Number(process.argv[3] ?? 2));
  console.log(JSON.stringify({ repository: loc.restic, prefix: loc.prefix, password: loc.password }));
}
