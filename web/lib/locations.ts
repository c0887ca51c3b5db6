// Repository locations as the UI handles them: the full engine `RepoLocation` (with S3
// secrets, only in memory while unlocking) and the `StoredLocation` kept in IndexedDB (never
// with secrets). Also the labels the UI shows for them.

import type { RepoLocation, S3Auth } from '../../workers/api';
import type { StoredLocation } from './db';

/** The zero-setup default: a repository in this browser's own storage (OPFS). */
export const DEFAULT_OPFS_NAME = 'default';
export const DEFAULT_OPFS: StoredLocation = { kind: 'opfs', name: DEFAULT_OPFS_NAME };
const DEFAULT_LABEL = 'This browser';

export function toStored(loc: RepoLocation): StoredLocation {
  switch (loc.kind) {
    case 'opfs':
      return { kind: 'opfs', name: loc.name };
    case 'folder':
      return { kind: 'folder', name: loc.name, handle: loc.handle };
    case 's3':
      return {
        kind: 's3',
        endpoint: loc.endpoint,
        region: loc.region,
        bucket: loc.bucket,
        prefix: loc.prefix,
        pathStyle: loc.pathStyle,
        authType: loc.auth.type === 'presign' ? 'presign' : 'keys',
      };
  }
}

/** A stored location made whole again with credentials the user typed or unlocked. */
export function toEngine(stored: StoredLocation, auth?: S3Auth): RepoLocation {
  switch (stored.kind) {
    case 'opfs':
      return { kind: 'opfs', name: stored.name };
    case 'folder':
      return { kind: 'folder', name: stored.name, handle: stored.handle };
    case 's3': {
      const { authType: _t, ...rest } = stored;
      // Without typed credentials the engine uses the keys it remembered (or, offline, none).
      return { ...rest, auth: auth ?? { type: 'remembered' } };
    }
  }
}

/** Same place? (Used to find an already-remembered entry for a location.) */
export function sameLocation(a: StoredLocation, b: StoredLocation): boolean {
  if (a.kind === 'opfs' && b.kind === 'opfs') return a.name === b.name;
  if (a.kind === 's3' && b.kind === 's3') return a.endpoint === b.endpoint && a.bucket === b.bucket && a.prefix === b.prefix;
  return false; // folder handles need isSameEntry (async); compared by the caller
}

export function describeLocation(loc: StoredLocation): string {
  switch (loc.kind) {
    case 'opfs':
      return loc.name === DEFAULT_OPFS_NAME ? 'Stored in this browser' : `Stored in this browser (${loc.name})`;
    case 'folder':
      return `Folder “${loc.name}”`;
    case 's3':
      return `Bucket ${loc.bucket}${loc.prefix ? '/' + loc.prefix : ''} at ${hostOf(loc.endpoint)}`;
  }
}

export function defaultLabel(loc: StoredLocation): string {
  switch (loc.kind) {
    case 'opfs':
      return loc.name === DEFAULT_OPFS_NAME ? DEFAULT_LABEL : loc.name;
    case 'folder':
      return loc.name;
    case 's3':
      return loc.prefix ? `${loc.bucket}/${loc.prefix}` : loc.bucket;
  }
}

export function isBucket(loc: { kind: string } | undefined): boolean {
  return loc?.kind === 's3';
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint;
  }
}

/** Checks an S3 form before anything is sent; returns a message per bad field. */
export function validateS3(f: { endpoint: string; bucket: string; region: string }): Record<string, string> {
  const errors: Record<string, string> = {};
  try {
    const u = new URL(f.endpoint);
    if (u.protocol !== 'https:' && u.protocol !== 'http:')
      errors['endpoint'] = 'The endpoint must start with https:// (or http:// for a server on this computer).';
  } catch {
    errors['endpoint'] = 'Enter the service address, e.g. https://s3.eu-central-003.backblazeb2.com';
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(f.bucket)) errors['bucket'] = 'Bucket names are 3–63 lowercase letters, digits, dots and hyphens.';
  if (!f.region.trim()) errors['region'] = 'Enter the region (us-east-1 if the provider has none).';
  return errors;
}
