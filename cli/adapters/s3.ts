// S3 repositories for the CLI: restic's `s3:` locations with the AWS_* variables it reads,
// as a cloneable spec (worker threads open their own backend from it), then the engine's
// presigned-URL S3 backend with node:crypto's MD5, a concurrency cap and retries.

import nodeCrypto from 'node:crypto';
import type { Backend } from '../../core/backend/backend';
import { withConcurrencyLimit } from '../../core/backend/limit';
import { endpointSigner, formatS3Location, openS3FromEnv, parseS3Location, S3Backend, type S3Env } from '../../core/backend/s3';

export interface S3Spec {
  kind: 's3';
  location: string;
  env: S3Env;
  /** restic's --stuck-request-timeout (default: the S3 backend's). */
  stuckTimeoutMs?: number;
  /** URLs from this presign endpoint with this device token, instead of AWS_* keys. */
  presign?: { endpoint: string; token: string };
}

export function parseS3Spec(repo: string, env: NodeJS.ProcessEnv, presign?: S3Spec['presign']): S3Spec {
  parseS3Location(repo); // fail early on a malformed location
  if (presign) return { kind: 's3', location: repo, env: {}, presign };
  const pick: S3Env = {};
  for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_DEFAULT_REGION', 'AWS_REGION'] as const) {
    if (env[k] !== undefined) pick[k] = env[k];
  }
  return { kind: 's3', location: repo, env: pick };
}

const md5 = (data: Uint8Array) => new Uint8Array(nodeCrypto.createHash('md5').update(data).digest());

/**
 * Through a presign endpoint every PUT carries `If-None-Match: *`: an append-only device's
 * endpoint signs no other, and for content-addressed files an existing object already holds the bytes.
 */
function presignedBackend(spec: S3Spec & { presign: NonNullable<S3Spec['presign']> }): S3Backend {
  const loc = parseS3Location(spec.location);
  const signer = endpointSigner(spec.presign.endpoint, undefined, { headers: { authorization: `Bearer ${spec.presign.token}` } });
  const stuck = spec.stuckTimeoutMs ? { stuckTimeoutMs: spec.stuckTimeoutMs } : {};
  return new S3Backend({ signer, prefix: loc.prefix, location: formatS3Location(loc), md5, noOverwrite: true, ...stuck });
}

export async function openS3Backend(spec: S3Spec): Promise<Backend> {
  const stuck = spec.stuckTimeoutMs ? { stuckTimeoutMs: spec.stuckTimeoutMs } : {};
  const be = spec.presign ? presignedBackend({ ...spec, presign: spec.presign }) : openS3FromEnv(spec.location, spec.env, { md5, ...stuck });
  return withConcurrencyLimit(be, be.connections);
}
