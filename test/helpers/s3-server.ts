// A real S3 endpoint (Ceph radosgw, scripts/s3/start.sh) for tests. `startS3()` starts a
// throwaway cluster (~3.5 s) and `stop()` removes it; with CAIRN_S3_ENV pointing at a running
// cluster's env.json it reuses that one and `stop()` leaves it running. Usable from a vitest
// globalSetup or a test file's beforeAll/afterAll.
//
//   scripts/s3/start.sh --dir /tmp/s3 && CAIRN_S3_ENV=/tmp/s3/env.json npx vitest run test/s3

import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { localSigner, signHeaders, type LocalSignerConfig, type UrlSigner } from '../../core/backend/s3';

const run = promisify(execFile);
const scripts = resolve(import.meta.dirname, '../../scripts/s3');

export interface S3Server {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The cluster's directory (logs under log/). */
  dir: string;
  /** Stops the cluster if this call started it. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** CORS origin(s) for the bucket, comma-separated (default http://localhost:5173). */
  origin?: string;
  store?: 'memstore' | 'bluestore';
}

async function readEnv(path: string): Promise<Omit<S3Server, 'stop'>> {
  const env = JSON.parse(await readFile(path, 'utf8')) as Omit<S3Server, 'stop'>;
  for (const k of ['endpoint', 'region', 'bucket', 'accessKeyId', 'secretAccessKey'] as const) {
    if (typeof env[k] !== 'string' || !env[k]) throw new Error(`${path}: "${k}" missing`);
  }
  return env;
}

export async function startS3(opts: StartOptions = {}): Promise<S3Server> {
  const reuse = process.env['CAIRN_S3_ENV'];
  if (reuse) return { ...(await readEnv(reuse)), stop: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'cairn-s3-'));
  // The watchdog removes the cluster should this process die before stop() runs.
  const args = ['--dir', dir, '--quiet', '--watch-pid', String(process.pid)];
  if (opts.origin) args.push('--origin', opts.origin);
  if (opts.store) args.push('--store', opts.store);
  try {
    await run(join(scripts, 'start.sh'), args, { env: { ...process.env, CI: 'true' }, timeout: 180_000 });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`scripts/s3/start.sh failed: ${err.stderr || err.message}`, { cause: e });
  }
  const env = await readEnv(join(dir, 'env.json'));
  let stopped = false;
  return {
    ...env,
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(join(scripts, 'stop.sh'), ['--dir', dir, '--rm'], { timeout: 60_000 });
    },
  };
}

/** Signer settings for the server's test user and a bucket (default: the server's bucket). */
export function signerConfig(s: Omit<S3Server, 'stop'>, bucket = s.bucket, extra: Partial<LocalSignerConfig> = {}): LocalSignerConfig {
  return { endpoint: s.endpoint, region: s.region, bucket, accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey, pathStyle: true, ...extra };
}

export function serverSigner(s: Omit<S3Server, 'stop'>, bucket = s.bucket): UrlSigner {
  return localSigner(signerConfig(s, bucket));
}

/** One header-signed request, for bucket administration the backend never does. */
export async function adminRequest(s: Omit<S3Server, 'stop'>, method: string, path: string, query: Record<string, string> = {}, body = ''): Promise<Response> {
  const url = new URL(s.endpoint);
  const payload = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body))), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
  const signed = await signHeaders(
    {
      method,
      host: url.host,
      path,
      query,
      headers: { 'x-amz-content-sha256': payload },
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      region: s.region,
      date: new Date(),
    },
    payload,
  );
  const qs = new URLSearchParams(query).toString();
  return fetch(`${s.endpoint}${path}${qs ? '?' + qs : ''}`, {
    method,
    headers: { 'x-amz-content-sha256': payload, ...signed.headers },
    body: body || undefined,
  });
}

export async function createBucket(s: Omit<S3Server, 'stop'>, bucket: string): Promise<void> {
  const res = await adminRequest(s, 'PUT', `/${bucket}`);
  const text = await res.text();
  if (!res.ok && !text.includes('BucketAlreadyOwnedByYou')) throw new Error(`create bucket ${bucket}: HTTP ${res.status} ${text}`);
}

/** The first 1000 objects under `prefix`: keys and sizes. */
export async function listObjects(s: Omit<S3Server, 'stop'>, bucket: string, prefix = ''): Promise<{ key: string; size: number }[]> {
  const { url } = await serverSigner(s, bucket).sign({ method: 'GET', key: '', query: { 'list-type': '2', prefix, 'max-keys': '1000' } });
  const xml = await (await fetch(url)).text();
  return [...xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map((m) => ({
    key: /<Key>([^<]*)<\/Key>/.exec(m[1]!)![1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'),
    size: Number(/<Size>(\d+)<\/Size>/.exec(m[1]!)?.[1] ?? 0),
  }));
}

/** Deletes every object under `prefix` (a few requests per 1000 keys) and, if asked, the bucket. */
export async function emptyBucket(s: Omit<S3Server, 'stop'>, bucket: string, prefix = '', removeBucket = false): Promise<void> {
  const signer = serverSigner(s, bucket);
  for (;;) {
    const keys = (await listObjects(s, bucket, prefix)).map((o) => o.key);
    if (keys.length === 0) break;
    let next = 0;
    const worker = async () => {
      while (next < keys.length) {
        const del = await signer.sign({ method: 'DELETE', key: keys[next++]! });
        const res = await fetch(del.url, { method: 'DELETE' });
        await res.body?.cancel();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }
  if (removeBucket) {
    const res = await adminRequest(s, 'DELETE', `/${bucket}`);
    await res.body?.cancel();
  }
}
