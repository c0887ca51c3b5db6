import { describe, expect, it } from 'vitest';
import { appError, describeError, describeWarning, errorCode, isCode } from './messages';

describe('messages', () => {
  it.each([
    [{ code: 'WRONG_PASSWORD', message: 'x' }, 'WRONG_PASSWORD'],
    [{ code: 'NO_SUCH_CODE' }, 'INTERNAL'],
    [{ name: 'AbortError' }, 'ABORTED'],
    [{ name: 'NotAllowedError' }, 'PERMISSION_DENIED'],
    [{ name: 'QuotaExceededError' }, 'QUOTA_EXCEEDED'],
    [new Error('LOCKED: repository is locked'), 'LOCKED'],
    [new TypeError('Failed to fetch'), 'NETWORK'],
    ['a string', 'INTERNAL'],
    [undefined, 'INTERNAL'],
  ])('errorCode(%j) = %s', (e, code) => {
    expect(errorCode(e)).toBe(code);
  });

  it('describes with the code’s own text, keeps the engine’s message as detail, and marks what a retry can help', () => {
    const d = describeError({ code: 'NETWORK', message: 'connect ECONNREFUSED' });
    expect(d).toMatchObject({ code: 'NETWORK', title: 'Cannot reach the storage', retryable: true, detail: 'connect ECONNREFUSED' });
    expect(describeError({ code: 'MAC_MISMATCH', message: 'x' }).retryable).toBe(false);
    expect(isCode(appError('NEEDS_NETWORK'), 'NEEDS_NETWORK')).toBe(true);
  });

  it('says what a full offline cache means, with how many snapshots it kept', () => {
    const full = describeError({ code: 'QUOTA_EXCEEDED', message: '3 of 20 snapshots are kept', detail: { reason: 'offline-cache-full' } });
    expect(full.text).toMatch(/only the snapshots kept so far can be browsed offline/);
    expect(full.detail).toBe('3 of 20 snapshots are kept');
    expect(describeError({ code: 'QUOTA_EXCEEDED', message: 'x' }).text).toMatch(/back up to a folder or a bucket/);
  });

  it('words a refusal by the presign endpoint as the device’s, other refusals as the keys’', () => {
    const refused = describeError({ code: 'ACCESS_DENIED', message: 'presign endpoint refused', detail: { reason: 'presign-refused' } });
    expect(refused).toMatchObject({ code: 'ACCESS_DENIED', title: 'The presign endpoint refused this device' });
    expect(refused.text).toContain('token');
    expect(describeError({ code: 'ACCESS_DENIED', message: 'x', detail: { status: 403 } }).title).toBe('Access denied');
    expect(describeError({ code: 'NOT_PERMITTED', message: 'x', detail: { reason: 'presign-refused' } }).title).toBe('Not allowed for this device');
  });

  it('words a warning by its code, or by its own message when the code is unknown', () => {
    expect(describeWarning({ path: '/a', code: 'SOURCE_READ', message: 'EIO' })).toBe('/a: A file could not be read');
    expect(describeWarning({ path: '/a', code: 'WHATEVER', message: 'odd' })).toBe('/a: odd');
  });
});
