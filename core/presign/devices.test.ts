import { describe, expect, it } from 'vitest';
import { bearerToken, constantTimeEqual, deviceForToken, newToken, tokenHash, type Device } from './devices';

describe('device tokens', () => {
  it('are 256-bit base64url tokens, stored as their SHA-256', async () => {
    const t = newToken();
    expect(t).toMatch(/^cairn_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(t);
    expect(await tokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('find the device of a token, and none for a wrong or revoked one', async () => {
    const [a, b] = [newToken(), newToken()];
    const devices: Device[] = [
      { name: 'laptop', role: 'append-only', tokenSha256: await tokenHash(a) },
      { name: 'admin', role: 'maintenance', tokenSha256: await tokenHash(b) },
    ];
    expect((await deviceForToken(devices, a))?.name).toBe('laptop');
    expect((await deviceForToken(devices, b))?.name).toBe('admin');
    expect(await deviceForToken(devices, a + 'x')).toBeUndefined();
    expect(await deviceForToken(devices, devices[0]!.tokenSha256)).toBeUndefined(); // the hash is no token
    expect(await deviceForToken(devices.slice(1), a)).toBeUndefined();
  });

  it('compare strings fully', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('read only the Bearer scheme', () => {
    expect(bearerToken('Bearer cairn_x')).toBe('cairn_x');
    expect(bearerToken('bearer  cairn_x ')).toBe('cairn_x');
    expect(bearerToken('Basic Y2Fpcm4=')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(null)).toBeUndefined();
  });
});
