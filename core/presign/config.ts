// The endpoint's configuration: one JSON document (a file for `cairn presign serve`, an
// environment variable for a Worker or a Lambda) that holds no secret — the bucket, the
// repository prefix, allowed origins and the devices with their token hashes — plus the bucket's
// keys from the environment: CAIRN_S3_ACCESS_KEY_ID / CAIRN_S3_SECRET_ACCESS_KEY, else the AWS_*
// variables (with AWS_SESSION_TOKEN, which a Lambda's own role provides).
//
//   { "s3": { "endpoint": "https://s3.us-west-004.backblazeb2.com", "region": "us-west-004",
//             "bucket": "my-backups", "pathStyle": true },
//     "prefix": "laptop", "origins": ["https://cairn.example"], "expiresSeconds": 300,
//     "listen": "127.0.0.1:8788",
//     "devices": [ { "name": "laptop", "role": "append-only", "tokenSha256": "…", "created": "…" } ] }

import { CairnError } from '../errors';
import { regionFromEndpoint } from '../backend/s3/location';
import { ROLES, type Device } from './devices';
import { checkPrefix } from './policy';

export interface PresignFileConfig {
  s3: { endpoint: string; region?: string; bucket: string; pathStyle?: boolean };
  prefix?: string;
  origins?: string[];
  expiresSeconds?: number;
  /** `host:port` for `cairn presign serve` (default 127.0.0.1:8788). */
  listen?: string;
  devices: Device[];
}

export type SecretEnv = Record<string, string | undefined>;

function bad(message: string): never {
  throw new CairnError('USAGE', `presign config: ${message}`, { op: 'presign-config' });
}

function checkDevices(v: unknown): Device[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) bad('"devices" must be a list');
  const names = new Set<string>();
  return v.map((d: Partial<Device>, i) => {
    if (typeof d?.name !== 'string' || !/^[\w.@-]{1,64}$/.test(d.name)) bad(`device ${i}: "name" must be 1–64 letters, digits, ".", "_", "@", "-"`);
    if (names.has(d.name)) bad(`device name "${d.name}" appears twice`);
    names.add(d.name);
    if (!ROLES.includes(d.role!)) bad(`device "${d.name}": "role" must be one of ${ROLES.join(', ')}`);
    if (typeof d.tokenSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(d.tokenSha256)) bad(`device "${d.name}": "tokenSha256" must be 64 hex digits`);
    return { name: d.name, role: d.role!, tokenSha256: d.tokenSha256, ...(typeof d.created === 'string' ? { created: d.created } : {}) };
  });
}

/** Validates a parsed configuration document; throws a USAGE CairnError naming the fault. */
export function parsePresignConfig(doc: unknown): PresignFileConfig {
  if (typeof doc !== 'object' || doc === null) bad('must be a JSON object');
  const c = doc as Partial<PresignFileConfig>;
  const s3 = c.s3;
  if (typeof s3?.endpoint !== 'string' || !/^https?:\/\/[^/]+\/?$/.test(s3.endpoint)) bad('"s3.endpoint" must be an http(s) URL without a path');
  if (typeof s3.bucket !== 'string' || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(s3.bucket)) bad('"s3.bucket" must be a bucket name');
  let prefix = '';
  try {
    prefix = checkPrefix(c.prefix ?? '');
  } catch (e) {
    bad((e as Error).message);
  }
  if (c.origins !== undefined && (!Array.isArray(c.origins) || c.origins.some((o) => typeof o !== 'string' || !/^https?:\/\/[^/]+$/.test(o))))
    bad('"origins" must be a list of origins such as "https://cairn.example" (no path, no trailing slash)');
  const expires = c.expiresSeconds;
  if (expires !== undefined && (!Number.isInteger(expires) || expires < 60 || expires > 900)) bad('"expiresSeconds" must be 60…900');
  if (c.listen !== undefined && (typeof c.listen !== 'string' || !/^[^\s:]+:\d{1,5}$/.test(c.listen))) bad('"listen" must be host:port');
  return {
    s3: {
      endpoint: s3.endpoint.replace(/\/$/, ''),
      bucket: s3.bucket,
      ...(s3.region ? { region: s3.region } : {}),
      ...(s3.pathStyle !== undefined ? { pathStyle: !!s3.pathStyle } : {}),
    },
    prefix,
    ...(c.origins ? { origins: c.origins } : {}),
    ...(expires ? { expiresSeconds: expires } : {}),
    ...(c.listen ? { listen: c.listen } : {}),
    devices: checkDevices(c.devices),
  };
}

/** The bucket's signing settings: the config's bucket with keys from the environment. */
export function s3SignerFromConfig(c: PresignFileConfig, env: SecretEnv) {
  const accessKeyId = (env['CAIRN_S3_ACCESS_KEY_ID'] ?? env['AWS_ACCESS_KEY_ID'])?.trim();
  const secretAccessKey = (env['CAIRN_S3_SECRET_ACCESS_KEY'] ?? env['AWS_SECRET_ACCESS_KEY'])?.trim();
  if (!accessKeyId || !secretAccessKey) bad('set CAIRN_S3_ACCESS_KEY_ID and CAIRN_S3_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
  const sessionToken = env['CAIRN_S3_ACCESS_KEY_ID'] ? undefined : env['AWS_SESSION_TOKEN']?.trim() || undefined;
  return {
    endpoint: c.s3.endpoint,
    bucket: c.s3.bucket,
    region: c.s3.region ?? regionFromEndpoint(c.s3.endpoint) ?? 'us-east-1',
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(c.s3.pathStyle !== undefined ? { pathStyle: c.s3.pathStyle } : {}),
  };
}
