// Repository locations spelled as restic spells them: a local path (or `local:<path>`) and
// `s3:<endpoint>/<bucket>[/<prefix>]` with AWS_* credentials. A location becomes a
// serialisable BackendSpec so worker threads can open the same backend themselves.

import { CairnError } from '../core/errors';
import type { Backend } from '../core/backend/backend';
import { withRetry } from '../core/backend/retry';
import { LocalBackend } from './adapters/local-backend';
import { openS3Backend, parseS3Spec, type S3Spec } from './adapters/s3';

export type BackendSpec = { kind: 'local'; path: string } | S3Spec;

export function parseLocation(repo: string | undefined, env: NodeJS.ProcessEnv): BackendSpec {
  if (!repo) throw new CairnError('USAGE', 'Please specify repository location (-r or --repository-file)');
  if (repo.startsWith('s3:')) return parseS3Spec(repo, env);
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

export async function openBackend(spec: BackendSpec, opts: { create?: boolean } = {}): Promise<Backend> {
  if (spec.kind === 'local') return opts.create ? LocalBackend.create(spec.path) : LocalBackend.open(spec.path);
  return withRetry(await openS3Backend(spec));
}
