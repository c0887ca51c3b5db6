// Devices and their bearer tokens. A token is shown to its owner once; the endpoint keeps only
// its SHA-256, so a leaked configuration holds nothing a client could present. Presented tokens
// are hashed and compared with every stored hash in full (no early exit), so the time taken
// says nothing about which device, or how much of a hash, matched.

export type Role = 'read' | 'append-only' | 'maintenance';

export const ROLES: readonly Role[] = ['read', 'append-only', 'maintenance'];

export interface Device {
  /** The owner's name for it, e.g. `laptop`; unique within one endpoint. */
  name: string;
  role: Role;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
  tokenSha256: string;
  /** ISO time it was added. */
  created?: string;
}

const TOKEN_PREFIX = 'cairn_';

function hex(b: ArrayBuffer): string {
  return Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, '0')).join('');
}

/** A fresh token: `cairn_` and 32 random bytes in base64url (256 bits). */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes));
  return TOKEN_PREFIX + b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function tokenHash(token: string): Promise<string> {
  return hex(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
}

/** Equal strings of equal length, in time that depends on the length only. */
export function constantTimeEqual(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % (a.length || 1)) | 0) ^ (b.charCodeAt(i % (b.length || 1)) | 0);
  return diff === 0;
}

/** The device a bearer token belongs to, if any; every stored hash is compared in full. */
export async function deviceForToken(devices: readonly Device[], token: string): Promise<Device | undefined> {
  const hash = await tokenHash(token);
  let found: Device | undefined;
  for (const d of devices) {
    if (constantTimeEqual(hash, d.tokenSha256.toLowerCase()) && !found) found = d;
  }
  return found;
}

/** The token of an `Authorization: Bearer <token>` header, if that is what it holds. */
export function bearerToken(authorization: string | null): string | undefined {
  const m = /^Bearer +([\x21-\x7e]{1,512})$/i.exec(authorization?.trim() ?? '');
  return m?.[1];
}
