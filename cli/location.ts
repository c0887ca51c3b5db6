// Repository locations spelled as restic spells them: a local path (or `local:<path>`) and
// `s3:<endpoint>/<bucket>[/<prefix>]` with AWS_* credentials. A location becomes a
// serialisable BackendSpec so worker threads can open the same backend themselves.

import { CairnError } from '../core/errors';
import type { Backend } from '../core/backend/backend';
import { withRetry, type RetryInfo } from '../core/backend/retry';
import { firstContact, FIRST_CONTACT_MS } from '../core/backend/first-contact';
import { LocalBackend } from './adapters/local-backend';
import { openS3Backend, parseS3Spec, type S3Spec } from './adapters/s3';

export type BackendSpec = { kind: 'local'; path: string } | S3Spec;

export function parseLocation(repo: string | undefined, env: NodeJS.ProcessEnv, presign?: S3Spec['presign']): BackendSpec {
  if (!repo) throw new CairnError('USAGE', 'Please specify repository location (-r or --repository-file)');
  if (repo.startsWith('s3:')) return parseS3Spec(repo, env, presign);
  if (presign) throw new CairnError('USAGE', 's3.presign-endpoint needs an s3: repository (s3:<endpoint>/<bucket>/<prefix>)');
  if (repo.startsWith('local:')) return { kind: 'local', path: repo.slice('local:'.length) };
  const scheme = /^([a-z0-9]+):/.exec(repo);
  if (scheme && scheme[1]!.length > 1) {
    throw new CairnError(
      'USAGE',
      `repository type "${scheme[1]}" is not supported by cairn (supported: local paths and s3:); Backblaze B2 works through its S3 API`,
    );
  }
  return { kind: 'local', path: repo };
}

export interface OpenBackendOptions {
  create?: boolean;
  /** Make the first request once, without retries, and say at once if the server cannot be reached. */
  probe?: boolean;
  signal?: AbortSignal;
  /** Told of each retry (restic prints "… returned error, retrying after …"). */
  onRetry?: (info: RetryInfo) => void;
}

export async function openBackend(spec: BackendSpec, opts: OpenBackendOptions = {}): Promise<Backend> {
  if (spec.kind === 'local') return opts.create ? LocalBackend.create(spec.path) : LocalBackend.open(spec.path);
  const be = await openS3Backend(spec);
  if (opts.probe) await firstContact(be, be.location, { signal: opts.signal, timeoutMs: Math.min(FIRST_CONTACT_MS, spec.stuckTimeoutMs ?? FIRST_CONTACT_MS) });
  return withRetry(be, { onRetry: opts.onRetry });
}
