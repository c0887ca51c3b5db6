// Tiny dependency-free S3 admin steps for scripts/s3/start.sh (runs with plain `node`, before
// any `npm install`): `ready <endpoint>` and `create-bucket <env.json>` (bucket + CORS rule).
// Signs with SigV4 in the Authorization header using node:crypto; the app's own signer lives
// in core/backend/s3/sigv4.ts.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

const sha256hex = (b) => createHash('sha256').update(b).digest('hex');
const hmac = (k, s) => createHmac('sha256', k).update(s).digest();

async function signedFetch(env, method, path, query, body = '') {
  const url = new URL(env.endpoint + path);
  const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
  const day = now.slice(0, 8);
  const scope = `${day}/${env.region}/s3/aws4_request`;
  const headers = {
    host: url.host,
    'x-amz-content-sha256': sha256hex(body),
    'x-amz-date': now,
  };
  if (body) headers['content-md5'] = createHash('md5').update(body).digest('base64');
  const names = Object.keys(headers).sort();
  const canonical = [method, path, query, names.map((n) => `${n}:${headers[n]}\n`).join(''), names.join(';'), headers['x-amz-content-sha256']].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', now, scope, sha256hex(canonical)].join('\n');
  let k = hmac('AWS4' + env.secretAccessKey, day);
  for (const part of [env.region, 's3', 'aws4_request']) k = hmac(k, part);
  const signature = createHmac('sha256', k).update(toSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${env.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  delete headers.host;
  const res = await fetch(`${env.endpoint}${path}${query ? '?' + query : ''}`, { method, headers, body: body || undefined });
  return { status: res.status, text: await res.text() };
}

const [cmd, arg] = process.argv.slice(2);
if (cmd === 'ready') {
  const res = await fetch(arg + '/', { signal: AbortSignal.timeout(2000) });
  const text = await res.text();
  process.exit(text.includes('ListAllMyBucketsResult') ? 0 : 1);
} else if (cmd === 'create-bucket') {
  const env = JSON.parse(readFileSync(arg, 'utf8'));
  const made = await signedFetch(env, 'PUT', `/${env.bucket}`, '');
  if (made.status !== 200 && !made.text.includes('BucketAlreadyOwnedByYou')) {
    console.error(`create bucket: HTTP ${made.status} ${made.text}`);
    process.exit(1);
  }
  const origins = env.origin
    .split(',')
    .map((o) => `<AllowedOrigin>${o.trim()}</AllowedOrigin>`)
    .join('');
  const cors =
    '<CORSConfiguration><CORSRule>' +
    origins +
    ['GET', 'PUT', 'HEAD', 'DELETE', 'POST'].map((m) => `<AllowedMethod>${m}</AllowedMethod>`).join('') +
    '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><ExposeHeader>Content-Range</ExposeHeader><ExposeHeader>Content-Length</ExposeHeader><MaxAgeSeconds>3600</MaxAgeSeconds>' +
    '</CORSRule></CORSConfiguration>';
  const put = await signedFetch(env, 'PUT', `/${env.bucket}`, 'cors=', cors);
  if (put.status !== 200) {
    console.error(`put bucket cors: HTTP ${put.status} ${put.text}`);
    process.exit(1);
  }
} else {
  console.error('usage: s3-admin.mjs ready <endpoint> | create-bucket <env.json>');
  process.exit(2);
}
