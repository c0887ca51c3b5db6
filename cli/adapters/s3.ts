// S3 repositories for the CLI: restic's `s3:` locations with the AWS_* variables it reads,
// as a cloneable spec (worker threads open their own backend from it), then the engine's
// presigned-URL S3 backend with node:crypto's MD5, a concurrency cap and retries.

import nodeCrypto from 'node:crypto';
import type { Backend } from '../../core/backend/backend';
import { withConcurrencyLimit } from '../../core/backend/limit';
import { openS3FromEnv, parseS3Location, type S3Env } from '../../core/backend/s3';

export interface S3Spec {
  kind: 's3';
  location: string;
  env: S3Env;
  /** restic's --stuck-request-timeout (default: the S3 backend's). */
  stuckTimeoutMs?: number;
}

export function parseS3Spec(repo: string, env: NodeJS.ProcessEnv): S3Spec {
  parseS3Location(repo); // fail early on a malformed location
  const pick: S3Env = {};
  for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_DEFAULT_REGION', 'AWS_REGION'] as const) {
    if (env[k] !== undefined) pick[k] = env[k];
  }
  return { kind: 's3', location: repo, env: pick };
}

const md5 = (data: Uint8Array) => new Uint8Array(nodeCrypto.createHash('md5').update(data).digest());

export async function openS3Backend(spec: S3Spec): Promise<Backend> {
  const be = openS3FromEnv(spec.location, spec.env, { md5, ...(spec.stuckTimeoutMs ? { stuckTimeoutMs: spec.stuckTimeoutMs } : {}) });
  return withConcurrencyLimit(be, be.connections);
}
