// Where a repository lives, as the engine opens it. A RepoLocation is structured-cloneable
// (directory handles are), so every file-saver worker opens the same backend itself from it.
// The S3 stack is restic's: retry around a concurrency cap around the presigning backend.

import { CairnError, isCairnError } from '../core/errors';
import type { Backend } from '../core/backend/backend';
import { FsaBackend } from '../core/backend/fsa';
import { withRetry, isRetryableError } from '../core/backend/retry';
import { withConcurrencyLimit } from '../core/backend/limit';
import { S3Backend, endpointSigner, formatS3Location, localSigner, type UrlSigner } from '../core/backend/s3';
import type { RepoLocation, S3Auth, S3Location } from './api';
import { EngineFault } from './errors';
import { locationKey } from './location-key';

export { locationKey };

const OPFS_REPOS_DIR = 'cairn-repos';

export function describeLocation(loc: RepoLocation): string {
  if (loc.kind === 's3')
    return formatS3Location({ endpoint: loc.endpoint.replace(/\/+$/, ''), bucket: loc.bucket, prefix: loc.prefix.replace(/^\/+|\/+$/g, '') });
  return locationKey(loc);
}

/** Repositories whose data needs the network (the offline cache holds their metadata). */
export const isRemote = (loc: RepoLocation): boolean => loc.kind === 's3';

/** True when the browser says it is offline (the test harness's context.setOffline too). */
export const browserOffline = (): boolean => typeof navigator !== 'undefined' && navigator.onLine === false;

function checkName(name: string): void {
  if (!name || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw new CairnError('USAGE', `invalid repository name ${JSON.stringify(name)}`);
}

async function opfsRepoDir(name: string, create: boolean): Promise<FileSystemDirectoryHandle> {
  checkName(name);
  if (!navigator.storage?.getDirectory) throw new EngineFault('UNSUPPORTED', 'this browser has no origin-private file system (OPFS)');
  const root = await navigator.storage.getDirectory();
  const repos = await root.getDirectoryHandle(OPFS_REPOS_DIR, { create: true });
  try {
    return await repos.getDirectoryHandle(name, { create });
  } catch (e) {
    if ((e as Error).name === 'NotFoundError')
      throw new CairnError('NOT_A_REPOSITORY', `no repository named ${JSON.stringify(name)} in this browser`, { op: 'open' });
    throw e;
  }
}

/** What the presign endpoint is sent besides the request: the device token as a bearer credential. */
function endpointHeaders(auth: Extract<S3Auth, { type: 'presign' }>): Record<string, string> {
  return { ...auth.headers, ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}) };
}

function signerFor(loc: S3Location, auth: S3Auth): UrlSigner {
  switch (auth.type) {
    case 'keys':
      return localSigner({
        endpoint: loc.endpoint.replace(/\/+$/, ''),
        region: loc.region || 'us-east-1',
        bucket: loc.bucket,
        pathStyle: loc.pathStyle,
        accessKeyId: auth.accessKeyId,
        secretAccessKey: auth.secretAccessKey,
        ...(auth.sessionToken ? { sessionToken: auth.sessionToken } : {}),
      });
    case 'presign':
      return endpointSigner(auth.url, globalThis.fetch.bind(globalThis), { headers: endpointHeaders(auth) });
    case 'remembered':
      throw new EngineFault('NOT_REMEMBERED', 'no S3 keys remembered for this bucket; enter them again');
  }
}

/** Opens (or, with `create`, prepares) the backend of a location. */
export async function openBackend(loc: RepoLocation, opts: { create?: boolean } = {}): Promise<Backend> {
  switch (loc.kind) {
    case 'opfs': {
      const dir = await opfsRepoDir(loc.name, opts.create ?? false);
      const location = describeLocation(loc);
      return opts.create ? FsaBackend.create(dir, { location }) : new FsaBackend(dir, { location });
    }
    case 'folder': {
      const location = describeLocation(loc);
      return opts.create ? FsaBackend.create(loc.handle, { location }) : new FsaBackend(loc.handle, { location });
    }
    case 's3': {
      // Through a presign endpoint every PUT says If-None-Match: * — what an append-only device's endpoint requires.
      const noOverwrite = loc.auth.type === 'presign';
      const s3 = new S3Backend({ signer: signerFor(loc, loc.auth), prefix: loc.prefix, location: describeLocation(loc), noOverwrite });
      // Offline, a retry cannot help: fail at once so the cache can answer.
      return withRetry(withConcurrencyLimit(s3), { isRetryable: (e) => !browserOffline() && isRetryableError(e), maxElapsedMs: 5 * 60_000 });
    }
  }
}

/** A network-shaped failure: the request never got an answer. */
export function isNetworkFailure(e: unknown): boolean {
  return isCairnError(e, 'NETWORK') || isCairnError(e, 'CORS_BLOCKED') || (e instanceof TypeError && /fetch|network|load failed/i.test(e.message));
}
