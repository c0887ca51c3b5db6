// The client's side of roles: which device may start which operation, checked before the first
// request so that a forbidden forget or prune fails at once with NOT_PERMITTED and changes
// nothing (the endpoint refuses the requests anyway; this keeps a run from stopping half-way).
// `deviceInfo` asks the endpoint who this device is (`GET <endpoint>`, see ./handler).

import { CairnError } from '../errors';
import type { Role } from './devices';
import type { DeviceInfo } from './handler';

/** `read`: only reads; `write`: adds objects and lock files; `maintenance`: removes or replaces. */
export type Access = 'read' | 'write' | 'maintenance';

const GRANTS: Record<Role, readonly Access[]> = {
  read: ['read'],
  'append-only': ['read', 'write'],
  maintenance: ['read', 'write', 'maintenance'],
};

export function roleAllows(role: Role, access: Access): boolean {
  return GRANTS[role].includes(access);
}

/** Throws NOT_PERMITTED unless the device's role allows `access`; `operation` names it for the message. */
export function requireAccess(info: DeviceInfo, access: Access, operation: string): void {
  if (roleAllows(info.role, access)) return;
  const why =
    info.role === 'append-only'
      ? 'an append-only device can add backups but not remove or change them; run it from a device with the maintenance role or with the bucket keys'
      : 'a read-only device can only read the repository';
  throw new CairnError('NOT_PERMITTED', `${operation} is not allowed for device "${info.device}" (role ${info.role}): ${why}`, {
    op: operation,
    detail: { role: info.role, device: info.device, access },
  });
}

/** Asks the endpoint which device the token belongs to and its role. */
export async function deviceInfo(
  endpoint: string,
  token: string,
  fetchFn: typeof fetch = globalThis.fetch.bind(globalThis),
  signal?: AbortSignal,
): Promise<DeviceInfo> {
  const op = 'presign-whoami';
  let res: Response;
  try {
    res = await fetchFn(endpoint, { method: 'GET', headers: { authorization: `Bearer ${token}` }, signal });
  } catch (e) {
    throw new CairnError('NETWORK', `presign endpoint ${endpoint} is unreachable: ${(e as Error).message}`, { op, cause: e, retryable: true });
  }
  const body = (await res.json().catch(() => ({}))) as Partial<DeviceInfo> & { error?: string };
  if (res.status === 401 || res.status === 403)
    throw new CairnError('ACCESS_DENIED', `presign endpoint refused this device token: ${body.error ?? res.status}`, {
      op,
      detail: { reason: 'presign-refused' },
    });
  if (!res.ok || typeof body.device !== 'string' || !['read', 'append-only', 'maintenance'].includes(body.role!) || typeof body.prefix !== 'string')
    throw new CairnError('BACKEND_IO', `presign endpoint ${endpoint} did not say who this device is (HTTP ${res.status})`, {
      op,
      retryable: res.status >= 500,
    });
  return { device: body.device, role: body.role!, prefix: body.prefix };
}
