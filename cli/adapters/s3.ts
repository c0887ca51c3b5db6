// S3 repositories for the CLI: `s3:` locations and AWS_* credentials → the S3 backend.
// (Filled in once core/backend/s3 lands.)

import { CairnError } from '../../core/errors';
import type { Backend } from '../../core/backend/backend';

export interface S3Spec {
  kind: 's3';
  location: string;
}

export function parseS3Spec(repo: string, _env: NodeJS.ProcessEnv): S3Spec {
  return { kind: 's3', location: repo };
}

export async function openS3Backend(spec: S3Spec): Promise<Backend> {
  throw new CairnError('USAGE', `S3 is not available yet: ${spec.location}`);
}
