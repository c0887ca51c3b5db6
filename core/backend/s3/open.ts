// Opening an S3 repository the way restic does: an `s3:…` string plus AWS_* variables.
// Returns the bare backend; callers add the decorators (withRetry(withConcurrencyLimit(be))).

import { formatS3Location, parseS3Location, s3SignerConfigFromEnv, type S3Env } from './location';
import { S3Backend, type S3BackendOptions } from './s3-backend';
import { localSigner } from './url-signer';

export interface OpenS3Options extends Omit<S3BackendOptions, 'signer' | 'prefix' | 'location'> {
  /** Override the path-style / virtual-hosted choice (see defaultPathStyle). */
  pathStyle?: boolean;
  expiresSeconds?: number;
}

export function openS3FromEnv(repository: string, env: S3Env, opts: OpenS3Options = {}): S3Backend {
  const { pathStyle, expiresSeconds, ...backendOpts } = opts;
  const loc = parseS3Location(repository);
  const signer = localSigner({
    ...s3SignerConfigFromEnv(loc, env),
    ...(pathStyle === undefined ? {} : { pathStyle }),
    ...(expiresSeconds === undefined ? {} : { expiresSeconds }),
  });
  return new S3Backend({ ...backendOpts, signer, prefix: loc.prefix, location: formatS3Location(loc) });
}
