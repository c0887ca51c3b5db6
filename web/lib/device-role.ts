// What the page says about a device connected through a presign endpoint (workers/api.ts
// RepoInfo.device): the line naming it and its role, and why a control is greyed out. The
// engine refuses the same operations (NOT_PERMITTED); greying them only says so before a click.

import { roleAllows, type Access } from '../../core/presign/access';
import type { DeviceInfo } from '../../workers/api';

/** "This device: laptop · append-only". */
export function deviceLine(d: DeviceInfo): string {
  return `This device: ${d.device} · ${d.role}`;
}

/** Why this device may not do what needs `access`, in one line; undefined when it may (or has no role: bucket keys). */
export function notAllowed(d: DeviceInfo | undefined, access: Access): string | undefined {
  if (!d || roleAllows(d.role, access)) return undefined;
  if (d.role === 'append-only')
    return 'This device is append-only: it adds backups but cannot remove or change anything. Use a maintenance device or the bucket keys for this.';
  return 'This device is read-only: it can browse and restore, but not back up or change anything.';
}
