// This device's role at its presign endpoint (core/presign): asked once when a repository is
// opened through an endpoint with a device token, shown by the page, and checked before an
// operation starts, so that what the role does not allow (a forget on an append-only laptop)
// fails at once with NOT_PERMITTED instead of half-way through. The endpoint refuses those
// requests anyway; this check only keeps a run from stopping after it changed something.

import { CairnError, isCairnError } from '../../core/errors';
import { deviceInfo, requireAccess, type Access } from '../../core/presign/access';
import type { DeviceInfo } from '../../core/presign/handler';
import type { RepoLocation } from '../api';

const trimSlashes = (p: string) => p.replace(/^\/+|\/+$/g, '');

/**
 * Who this device is at its endpoint, or undefined without one (bucket keys, OPFS, a folder),
 * without a token, offline, or when the endpoint does not answer the question (one written
 * to the bare contract in PRESIGN-ENDPOINT.md: it still refuses what it does not allow).
 * A refused token rejects with ACCESS_DENIED; an endpoint serving another prefix with USAGE.
 */
export async function deviceFor(loc: RepoLocation, offline: boolean, signal?: AbortSignal): Promise<DeviceInfo | undefined> {
  if (loc.kind !== 's3' || loc.auth.type !== 'presign' || !loc.auth.token || offline) return undefined;
  let info: DeviceInfo;
  try {
    info = await deviceInfo(loc.auth.url, loc.auth.token, globalThis.fetch.bind(globalThis), signal);
  } catch (e) {
    if (isCairnError(e, 'BACKEND_IO') && !e.retryable) return undefined;
    throw e;
  }
  if (trimSlashes(info.prefix) !== trimSlashes(loc.prefix))
    throw new CairnError('USAGE', `the presign endpoint serves the repository at "${info.prefix}" in the bucket, not "${loc.prefix}"`, {
      op: 'open',
      detail: { endpointPrefix: info.prefix, prefix: loc.prefix },
    });
  return info;
}

/** Rejects with NOT_PERMITTED unless the device's role allows `access`; no device (keys): anything. */
export function requireDevice(device: DeviceInfo | undefined, access: Access, operation: string): void {
  if (device) requireAccess(device, access, operation);
}
