// restic's S3 repository strings and credentials, read the way restic reads them
// (internal/backend/s3/config.go ParseConfig, and the AWS_* variables it documents):
//   s3:http(s)://host[:port]/bucket[/prefix]   an explicit endpoint URL
//   s3:host/bucket[/prefix]  or  s3://host/bucket[/prefix]   https to `host`
// The prefix is cleaned like Go's path.Clean; none means the bucket's root.

import { CairnError } from '../../errors';
import type { LocalSignerConfig } from './url-signer';

export interface S3Location {
  /** Service URL with scheme and no path, e.g. `https://s3.amazonaws.com`. */
  endpoint: string;
  bucket: string;
  /** Key prefix inside the bucket, no leading or trailing `/` ('' = bucket root). */
  prefix: string;
}

function usage(message: string): CairnError {
  return new CairnError('USAGE', message, { op: 'parse-location' });
}

/** Go's path.Clean, for the relative prefix restic takes after the bucket name. */
export function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  return rooted ? '/' + joined : joined || '.';
}

function make(endpoint: string, parts: string[]): S3Location {
  const bucket = parts[0] ?? '';
  if (!bucket) throw usage('s3: invalid format, host/region or bucket name not found');
  // restic keeps path.Clean's result as is; S3 keys never start with '/', and '.' is the root.
  const raw = parts[1] ? cleanPath(parts[1]) : '';
  const prefix = raw.replace(/^\/+/, '').replace(/^\.$/, '');
  if (prefix.split('/').includes('..')) throw usage(`s3: prefix may not leave the bucket: ${parts[1]}`);
  return { endpoint, bucket, prefix };
}

/** Parses `s3:…` as restic does; throws a USAGE CairnError for anything else. */
export function parseS3Location(s: string): S3Location {
  if (s.startsWith('s3:http')) {
    let url: URL;
    try {
      url = new URL(s.slice(3));
    } catch {
      throw usage(`s3: not a valid URL: ${s.slice(3)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usage(`s3: unsupported scheme ${url.protocol}`);
    let path = url.pathname;
    try {
      path = decodeURIComponent(path);
    } catch {
      // a stray '%': keep the path as written
    }
    if (path === '' || path === '/') throw usage('s3: bucket name not found');
    const slash = path.indexOf('/', 1);
    const parts = slash < 0 ? [path.slice(1)] : [path.slice(1, slash), path.slice(slash + 1)];
    return make(`${url.protocol}//${url.host}`, parts);
  }
  let rest: string;
  if (s.startsWith('s3://')) rest = s.slice(5);
  else if (s.startsWith('s3:')) rest = s.slice(3);
  else throw usage('s3: invalid format');
  const first = rest.indexOf('/');
  if (first < 0) throw usage('s3: invalid format, host/region or bucket name not found');
  const host = rest.slice(0, first);
  const after = rest.slice(first + 1);
  const second = after.indexOf('/');
  const parts = second < 0 ? [after] : [after.slice(0, second), after.slice(second + 1)];
  return make(`https://${host}`, parts);
}

/** restic's spelling of a location, e.g. `s3:http://127.0.0.1:7480/bucket/prefix`. */
export function formatS3Location(loc: S3Location): string {
  return `s3:${loc.endpoint}/${loc.bucket}${loc.prefix ? '/' + loc.prefix : ''}`;
}

/** The region an endpoint's host name spells out (AWS and Backblaze B2 do), if any. */
export function regionFromEndpoint(endpoint: string): string | undefined {
  const host = new URL(endpoint).hostname;
  const m =
    /^s3[.-](?:dualstack\.)?([a-z]{2}(?:-gov)?-[a-z]+-\d)\.amazonaws\.com(?:\.cn)?$/.exec(host) ?? /^s3\.([a-z]+-[a-z]+-\d{3})\.backblazeb2\.com$/.exec(host);
  return m?.[1];
}

/** The variables restic reads; pass `process.env` from the CLI, a plain object elsewhere. */
export interface S3Env {
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  AWS_SESSION_TOKEN?: string;
  AWS_DEFAULT_REGION?: string;
  AWS_REGION?: string;
}

/**
 * Signer settings for a location from AWS_* variables. Region: AWS_DEFAULT_REGION, then
 * AWS_REGION, then the endpoint's host name, then us-east-1 (what radosgw and MinIO accept).
 */
export function s3SignerConfigFromEnv(loc: S3Location, env: S3Env): LocalSignerConfig {
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (!accessKeyId) throw usage('AWS_ACCESS_KEY_ID is not set: the S3 backend needs an access key');
  if (!secretAccessKey) throw usage('AWS_SECRET_ACCESS_KEY is not set: the S3 backend needs the secret key');
  const region = env.AWS_DEFAULT_REGION?.trim() || env.AWS_REGION?.trim() || regionFromEndpoint(loc.endpoint) || 'us-east-1';
  const sessionToken = env.AWS_SESSION_TOKEN?.trim() || undefined;
  return { endpoint: loc.endpoint, bucket: loc.bucket, region, accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}
