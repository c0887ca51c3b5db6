import { describe, expect, it } from 'vitest';
import { deviceLine, notAllowed } from './device-role';

const device = (role: 'read' | 'append-only' | 'maintenance') => ({ device: 'laptop', role, prefix: 'repo' });

describe('device-role', () => {
  it('names the device and its role', () => {
    expect(deviceLine(device('append-only'))).toBe('This device: laptop · append-only');
  });

  it('greys what the role does not allow, with a reason; bucket keys (no device) and maintenance allow everything', () => {
    const table: [ReturnType<typeof device> | undefined, 'read' | 'write' | 'maintenance', boolean][] = [
      [undefined, 'maintenance', true],
      [device('maintenance'), 'maintenance', true],
      [device('append-only'), 'write', true],
      [device('append-only'), 'maintenance', false],
      [device('read'), 'read', true],
      [device('read'), 'write', false],
      [device('read'), 'maintenance', false],
    ];
    for (const [d, access, allowed] of table) expect(notAllowed(d, access) === undefined, `${d?.role} ${access}`).toBe(allowed);
    expect(notAllowed(device('append-only'), 'maintenance')).toMatch(/append-only/);
    expect(notAllowed(device('read'), 'write')).toMatch(/read-only/);
  });
});
