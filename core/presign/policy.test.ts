import { describe, expect, it } from 'vitest';
import { checkPrefix, checkRequest, Refusal } from './policy';
import type { Role } from './devices';

const ID = 'ab'.padEnd(64, '0');
const MD5 = { 'content-md5': '1B2M2Y8AsgTpgAmY7PhCfg==' };
const NEW = { ...MD5, 'if-none-match': '*' };

function reason(body: unknown, role: Role = 'append-only', prefix = 'repo'): string {
  try {
    checkRequest(body, prefix, role);
    return 'ok';
  } catch (e) {
    if (e instanceof Refusal) return `${e.status} ${e.reason}`;
    throw e;
  }
}

describe('checkRequest', () => {
  it.each([
    ['read a pack', { method: 'GET', key: `repo/data/ab/${ID}` }, 'ok'],
    ['stat the config', { method: 'HEAD', key: 'repo/config' }, 'ok'],
    ['create a snapshot', { method: 'PUT', key: `repo/snapshots/${ID}`, headers: NEW }, 'ok'],
    ['remove a lock', { method: 'DELETE', key: `repo/locks/${ID}` }, 'ok'],
    ['list snapshots', { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'repo/snapshots/', 'max-keys': '1000' } }, 'ok'],
    ['list on', { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'repo/data/', 'continuation-token': 'x', 'start-after': 'repo/data/ab' } }, 'ok'],
    ['delete a snapshot', { method: 'DELETE', key: `repo/snapshots/${ID}` }, '403 role'],
    ['delete a pack', { method: 'DELETE', key: `repo/data/ab/${ID}` }, '403 role'],
    ['overwrite (no if-none-match)', { method: 'PUT', key: `repo/index/${ID}`, headers: MD5 }, '403 overwrite'],
    ['PUT without content-md5', { method: 'PUT', key: `repo/keys/${ID}`, headers: { 'if-none-match': '*' } }, '403 no-content-md5'],
    ['if-none-match other than *', { method: 'PUT', key: `repo/keys/${ID}`, headers: { ...MD5, 'if-none-match': '"etag"' } }, '403 header'],
    ['../other', { method: 'PUT', key: `repo/../other/config`, headers: NEW }, '403 dot-segment'],
    ['%2e%2e', { method: 'GET', key: `repo/%2e%2e/other/config` }, '403 dot-segment'],
    ['%252e%252e', { method: 'GET', key: `repo/%252e%252e/config` }, '403 dot-segment'],
    ['./', { method: 'GET', key: `repo/./config` }, '403 dot-segment'],
    ['//', { method: 'GET', key: `repo//config` }, '403 dot-segment'],
    ['absolute key', { method: 'GET', key: `/repo/config` }, '403 outside-prefix'],
    ['other bucket', { method: 'GET', key: `other-bucket/repo/config` }, '403 outside-prefix'],
    ['prefix look-alike', { method: 'GET', key: `repository/config` }, '403 outside-prefix'],
    ['not a repository file', { method: 'PUT', key: `repo/data/ab/evil.html`, headers: NEW }, '403 not-repository-file'],
    ['pack in the wrong folder', { method: 'GET', key: `repo/data/cd/${ID}` }, '403 not-repository-file'],
    ['backslash', { method: 'GET', key: `repo\\..\\config` }, '403 bad-key'],
    ['sub-resource on an object', { method: 'GET', key: 'repo/config', query: { acl: '' } }, '403 forged-query'],
    ['x-amz-* on an object', { method: 'PUT', key: `repo/keys/${ID}`, query: { 'x-amz-acl': 'public-read' }, headers: NEW }, '403 forged-query'],
    ['response-* on an object', { method: 'GET', key: 'repo/config', query: { 'response-content-type': 'text/html' } }, '403 forged-query'],
    ['x-amz-* in a listing', { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'repo/index/', 'X-Amz-Expires': '604800' } }, '403 forged-query'],
    ['listing another prefix', { method: 'GET', key: '', query: { 'list-type': '2', prefix: 'other/' } }, '403 outside-prefix'],
    ['listing the whole bucket', { method: 'GET', key: '', query: { 'list-type': '2', prefix: '' } }, '403 outside-prefix'],
    ['ListObjects v1', { method: 'GET', key: '', query: { prefix: 'repo/index/' } }, '403 bad-listing'],
    ['delete the bucket', { method: 'DELETE', key: '' }, '403 bad-listing'],
    ['sign a range header', { method: 'GET', key: 'repo/config', headers: { range: 'bytes=0-1' } }, '403 header'],
    ['sign x-amz-copy-source', { method: 'PUT', key: `repo/keys/${ID}`, headers: { ...NEW, 'x-amz-copy-source': 'other/x' } }, '403 header'],
    ['POST', { method: 'POST', key: 'repo/config' }, '400 method'],
    ['unknown field', { method: 'GET', key: 'repo/config', bucket: 'other' }, '400 malformed'],
    ['not an object', [1, 2], '400 malformed'],
    ['null', null, '400 malformed'],
    ['key not a string', { method: 'GET', key: 5 }, '400 malformed'],
    ['query values not strings', { method: 'GET', key: '', query: { 'list-type': 2 } }, '400 malformed'],
    ['huge key', { method: 'GET', key: 'repo/' + 'a'.repeat(2000) }, '400 bad-key'],
  ])('%s', (_, body, want) => {
    expect(reason(body)).toBe(want);
  });

  it('gives each role its methods', () => {
    const del = { method: 'DELETE', key: `repo/snapshots/${ID}` };
    const put = { method: 'PUT', key: `repo/snapshots/${ID}`, headers: MD5 };
    const lock = { method: 'PUT', key: `repo/locks/${ID}`, headers: NEW };
    expect([reason(del, 'read'), reason(put, 'read'), reason(lock, 'read')]).toEqual(['403 role', '403 role', '403 role']);
    expect([reason(del, 'maintenance'), reason(put, 'maintenance'), reason(lock, 'maintenance')]).toEqual(['ok', 'ok', 'ok']);
  });

  it('works at the bucket root and refuses unclean prefixes', () => {
    expect(reason({ method: 'GET', key: 'config' }, 'read', '')).toBe('ok');
    expect(reason({ method: 'GET', key: 'other/config' }, 'read', '')).toBe('403 not-repository-file');
    expect(checkPrefix('/a/b/')).toBe('a/b');
    for (const p of ['a/../b', 'a/./b', 'a b', 'a%2fb']) expect(() => checkPrefix(p)).toThrow(TypeError);
  });
});
