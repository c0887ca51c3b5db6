// The device's role at its presign endpoint, against the endpoint's own handler (core/presign,
// what `cairn presign serve` runs) answering the engine's fetches: the engine asks who it is with
// the device token, signs through it with the same token, and refuses what the role does not
// allow with NOT_PERMITTED before a single object of the repository changes.

import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { MemSource } from '../../test/helpers/mem-source';
import { backup } from '../../core/archiver/archiver';
import { inProcessPool } from '../../core/archiver/pool';
import type { Backend } from '../../core/backend/backend';
import { presignHandler, type AnswerLog } from '../../core/presign/handler';
import { tokenHash, type Device, type Role } from '../../core/presign/devices';
import type { S3Location } from '../api';
import { openBackend } from '../location';
import { deviceFor } from './device';
import { addRepositoryKey, changePassword, removeRepositoryKey } from './keys';
import { forget } from './retention';
import { Session } from './session';

const OWNER = { hostname: 'browser-test', username: 'cairn' };
const ENDPOINT = 'https://presign.test/';
const S3 = { endpoint: 'https://s3.test', region: 'us-east-1', bucket: 'b', accessKeyId: 'AK', secretAccessKey: 'SK', pathStyle: true };

/** The real handler behind `fetch` for ENDPOINT; the bucket (S3) answers 404 to everything. */
async function endpoint(): Promise<AnswerLog[]> {
  const devices: Device[] = [];
  for (const [name, role] of [
    ['laptop', 'append-only'],
    ['admin', 'maintenance'],
  ] as [string, Role][])
    devices.push({ name, role, tokenSha256: await tokenHash(`tok-${name}`) });
  const log: AnswerLog[] = [];
  const handle = presignHandler({ s3: S3, prefix: 'repo', devices: () => devices, onAnswer: (a) => log.push(a) });
  const fetchFn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    return req.url.startsWith(ENDPOINT) ? handle(req) : new Response('<Error><Code>NoSuchKey</Code></Error>', { status: 404 });
  });
  vi.stubGlobal('fetch', fetchFn);
  return log;
}

const location = (auth: S3Location['auth'], prefix = '/repo/'): S3Location => ({ kind: 's3', ...S3, prefix, auth });
const viaEndpoint = (token?: string) => location(token ? { type: 'presign', url: ENDPOINT, token } : { type: 'presign', url: ENDPOINT });

async function objects(backend: Backend): Promise<string[]> {
  const names: string[] = [];
  for (const type of ['keys', 'snapshots', 'index', 'locks'] as const) for await (const f of backend.list(type)) names.push(`${type}/${f.name}`);
  return names.sort();
}

async function sessionAs(role: Role | undefined): Promise<{ s: Session; backend: Backend; snapshots: string[] }> {
  const { repo, backend } = await memRepo();
  for (let i = 0; i < 2; i++) {
    const src = new MemSource({ d: { [`f${i}.txt`]: { data: new TextEncoder().encode(`file ${i}\n`) } } });
    await backup(repo, src, inProcessPool({ saver: backend, reader: src }), { hostname: OWNER.hostname, targets: ['/d'] });
  }
  const device = role && { device: 'laptop', role, prefix: 'repo' };
  const s = new Session({ loc: viaEndpoint('tok'), locationKey: 'test', repo, offline: false, remembered: false, device });
  return { s, backend, snapshots: await repo.listIDs('snapshots') };
}

describe('the device at its presign endpoint', () => {
  beforeAll(initEngine);
  afterEach(() => vi.unstubAllGlobals());

  it('is asked with the device token when the location goes through an endpoint', async () => {
    const log = await endpoint();
    expect(await deviceFor(viaEndpoint('tok-laptop'), false)).toEqual({ device: 'laptop', role: 'append-only', prefix: 'repo' });
    expect(log).toEqual([expect.objectContaining({ status: 200, device: 'laptop' })]);
  });

  it('a refused token is ACCESS_DENIED, an endpoint for another folder USAGE; keys, no token or offline ask nothing', async () => {
    await endpoint();
    await expect(deviceFor(viaEndpoint('tok-wrong'), false)).rejects.toMatchObject({ code: 'ACCESS_DENIED', detail: { reason: 'presign-refused' } });
    await expect(deviceFor(location({ type: 'presign', url: ENDPOINT, token: 'tok-laptop' }, 'other'), false)).rejects.toMatchObject({ code: 'USAGE' });
    const asked = vi.mocked(fetch).mock.calls.length;
    expect(await deviceFor(location({ type: 'keys', accessKeyId: 'a', secretAccessKey: 'b' }), false)).toBeUndefined();
    expect(await deviceFor(viaEndpoint(), false)).toBeUndefined();
    expect(await deviceFor(viaEndpoint('tok-laptop'), true)).toBeUndefined();
    expect(vi.mocked(fetch).mock.calls.length).toBe(asked);
  });

  it('signs every request through the endpoint with the device token', async () => {
    const log = await endpoint();
    const backend = await openBackend(viaEndpoint('tok-laptop'));
    await expect(backend.stat({ type: 'config', name: '' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(log).toEqual([expect.objectContaining({ status: 200, device: 'laptop', method: 'HEAD', key: 'repo/config' })]);
    await backend.close();
  });

  it('an append-only device may not forget, prune or change keys: NOT_PERMITTED, nothing changed', async () => {
    const { s, backend, snapshots } = await sessionAs('append-only');
    const before = await objects(backend);
    const signal = new AbortController().signal;
    const denied = { code: 'NOT_PERMITTED', detail: { role: 'append-only', device: 'laptop' } };
    await expect(forget(s, { ids: [snapshots[0]!] }, OWNER, signal)).rejects.toMatchObject(denied);
    await expect(forget(s, { policy: { keepLast: '1' }, prune: true }, OWNER, signal)).rejects.toMatchObject(denied);
    await expect(addRepositoryKey(s, 'another password', OWNER)).rejects.toMatchObject(denied);
    await expect(changePassword(s, 'unit-test-password', 'next one', OWNER)).rejects.toMatchObject(denied);
    await expect(removeRepositoryKey(s, s.repo.keyID, OWNER, { allowCurrent: true })).rejects.toMatchObject(denied);
    expect(() => s.requireAccess('write', 'backing up')).not.toThrow();
    expect(await objects(backend)).toEqual(before);
  });

  it('a read device may not back up; a maintenance device, or keys (no device), may forget', async () => {
    const reader = await sessionAs('read');
    expect(() => reader.s.requireAccess('write', 'backing up')).toThrow(expect.objectContaining({ code: 'NOT_PERMITTED' }));
    for (const role of ['maintenance', undefined] as const) {
      const { s, snapshots } = await sessionAs(role);
      const r = await forget(s, { ids: [snapshots[0]!] }, OWNER, new AbortController().signal);
      expect(r.removed).toEqual([snapshots[0]]);
    }
  });
});
