// The local radosgw for the S3 column: started with the project's scripts/s3/start.sh (bluestore,
// as /work/shared/s3-test-endpoint.md advises for multi-GB runs) unless BENCH_S3_DIR names a
// running one, and always stopped again by the benchmark that started it. Repository bytes come
// from a bucket listing; each repository lives under its own prefix and is deleted after use.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { ROOT } from './config.mjs';

export async function startS3(cfg, log) {
  if (cfg.s3Dir) {
    const env = JSON.parse(fs.readFileSync(path.join(cfg.s3Dir, 'env.json'), 'utf8'));
    log(`using the running radosgw at ${env.endpoint} (${cfg.s3Dir})`);
    return { env, stop() {} };
  }
  const dir = path.join(cfg.scratch, 's3');
  if (fs.existsSync(path.join(dir, 'pids'))) spawnSync('bash', [path.join(ROOT, 'scripts/s3/stop.sh'), '--dir', dir, '--rm'], { stdio: 'inherit' });
  fs.rmSync(dir, { recursive: true, force: true });
  const t = Date.now();
  const r = spawnSync(
    'bash',
    [path.join(ROOT, 'scripts/s3/start.sh'), '--dir', dir, '--store', 'bluestore', '--size', '60G', '--bucket', 'cairn-bench', '--origin', '*', '--quiet'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`scripts/s3/start.sh failed (exit ${r.status})`);
  const env = JSON.parse(fs.readFileSync(path.join(dir, 'env.json'), 'utf8'));
  log(`radosgw (bluestore) up at ${env.endpoint} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  let stopped = false;
  return {
    env,
    stop() {
      if (stopped) return;
      stopped = true;
      spawnSync('bash', [path.join(ROOT, 'scripts/s3/stop.sh'), '--dir', dir, '--rm'], { stdio: 'inherit' });
    },
  };
}

export function s3ToolEnv(env) {
  return { AWS_ACCESS_KEY_ID: env.accessKeyId, AWS_SECRET_ACCESS_KEY: env.secretAccessKey, AWS_DEFAULT_REGION: env.region };
}

// A minimal SigV4 client for the two calls the benchmark needs (list a prefix, delete keys), so
// measuring a bucket needs no SDK (scripts/s3/s3-admin.mjs signs the same way).
const sha256hex = (b) => createHash('sha256').update(b).digest('hex');
const hmac = (k, s) => createHmac('sha256', k).update(s).digest();
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

async function signed(env, method, query, body = '') {
  const url = new URL(`${env.endpoint}/${env.bucket}`);
  const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = now.slice(0, 8);
  const scope = `${day}/${env.region}/s3/aws4_request`;
  const q = Object.entries(query)
    .map(([k, v]) => [enc(k), enc(v)])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const headers = { host: url.host, 'x-amz-content-sha256': sha256hex(body), 'x-amz-date': now };
  if (body) headers['content-md5'] = createHash('md5').update(body).digest('base64');
  const names = Object.keys(headers).sort();
  const canonical = [method, url.pathname, q, names.map((n) => `${n}:${headers[n]}\n`).join(''), names.join(';'), headers['x-amz-content-sha256']].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', now, scope, sha256hex(canonical)].join('\n');
  let k = hmac('AWS4' + env.secretAccessKey, day);
  for (const part of [env.region, 's3', 'aws4_request']) k = hmac(k, part);
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${env.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${createHmac('sha256', k).update(toSign).digest('hex')}`;
  delete headers.host;
  const res = await fetch(`${url}?${q}`, { method, headers, body: body || undefined });
  const text = await res.text();
  if (!res.ok) throw new Error(`S3 ${method} ?${q}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return text;
}

const xmlAll = (xml, tag) => [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]);
const unxml = (s) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

async function listAll(env, prefix) {
  const out = [];
  let token;
  do {
    const xml = await signed(env, 'GET', { 'list-type': '2', prefix, ...(token ? { 'continuation-token': token } : {}) });
    for (const c of xmlAll(xml, 'Contents')) out.push({ key: unxml(xmlAll(c, 'Key')[0]), size: Number(xmlAll(c, 'Size')[0]) });
    token = xmlAll(xml, 'IsTruncated')[0] === 'true' ? unxml(xmlAll(xml, 'NextContinuationToken')[0]) : undefined;
  } while (token);
  return out;
}

/** Total size and count of the objects under prefix/. */
export async function prefixBytes(env, prefix) {
  const out = await listAll(env, `${prefix}/`);
  return { bytes: out.reduce((a, o) => a + o.size, 0), files: out.length };
}

export async function deletePrefix(env, prefix) {
  const out = await listAll(env, `${prefix}/`);
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  for (let i = 0; i < out.length; i += 1000) {
    const body = `<Delete><Quiet>true</Quiet>${out
      .slice(i, i + 1000)
      .map((o) => `<Object><Key>${esc(o.key)}</Key></Object>`)
      .join('')}</Delete>`;
    await signed(env, 'POST', { delete: '' }, body);
  }
}
