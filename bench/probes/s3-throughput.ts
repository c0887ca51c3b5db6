// Measures S3Backend throughput against a radosgw from scripts/s3/start.sh: presigned PUTs
// (with SHA-256 name check and Content-MD5) and GETs of random packs, one at a time and with
// several in flight. Not a test; numbers for the report and for tuning `connections`.
//
//   npx tsx bench/probes/s3-throughput.ts [--env D/env.json] [--count 50] [--mib 4] [--concurrency 1,5]
// Without --env (or CAIRN_S3_ENV) it starts and stops its own cluster.

import { randomFillSync } from 'node:crypto';
import { S3Backend, md5 } from '../../core/backend/s3';
import { hashID } from '../../core/id';
import type { Handle } from '../../core/backend/backend';
import { emptyBucket, serverSigner, startS3 } from '../../test/helpers/s3-server';

const argv = process.argv.slice(2);
const arg = (name: string, def: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1]! : def;
};
if (argv.includes('--env')) process.env['CAIRN_S3_ENV'] = arg('--env', '');
const count = Number(arg('--count', '50'));
const mib = Number(arg('--mib', '4'));
const concurrencies = arg('--concurrency', '1,5').split(',').map(Number);

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const server = await startS3();
try {
  const packs: { h: Handle; data: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    const data = randomFillSync(new Uint8Array(mib * 1024 * 1024));
    packs.push({ h: { type: 'data', name: await hashID(data) }, data });
  }
  const total = count * mib;
  let t0 = performance.now();
  for (const p of packs) md5(p.data);
  const md5Rate = total / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  for (const p of packs) await hashID(p.data);
  console.log(`client-side hashing: MD5 ${md5Rate.toFixed(0)} MiB/s, SHA-256 ${(total / ((performance.now() - t0) / 1000)).toFixed(0)} MiB/s`);
  for (const c of concurrencies) {
    const prefix = `throughput-${Date.now()}-${c}`;
    const be = new S3Backend({ signer: serverSigner(server), prefix });
    let t = performance.now();
    await pool(packs, c, (p) => be.save(p.h, p.data));
    const put = total / ((performance.now() - t) / 1000);
    t = performance.now();
    await pool(packs, c, async (p) => void (await be.load(p.h)));
    const get = total / ((performance.now() - t) / 1000);
    // The same uploads as bare presigned PUTs (no SHA-256 check, no Content-MD5): our overhead.
    const signer = serverSigner(server);
    t = performance.now();
    await pool(packs, c, async (p) => {
      const { url } = await signer.sign({ method: 'PUT', key: `${prefix}-raw/${p.h.name}` });
      const res = await fetch(url, { method: 'PUT', body: p.data as BodyInit });
      if (!res.ok) throw new Error(`raw PUT: HTTP ${res.status}`);
      await res.arrayBuffer();
    });
    const raw = total / ((performance.now() - t) / 1000);
    console.log(`${count} x ${mib} MiB, ${c} at a time: PUT ${put.toFixed(0)} MiB/s (bare presigned PUT ${raw.toFixed(0)}), GET ${get.toFixed(0)} MiB/s`);
    await emptyBucket(server, server.bucket, `${prefix}-raw/`);
    await emptyBucket(server, server.bucket, `${prefix}/`);
  }
} finally {
  await server.stop();
}
