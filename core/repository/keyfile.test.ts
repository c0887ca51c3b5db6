import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine, OWNER, resticFile, resticFixture } from '../../test/helpers/mem-repo';
import { MemoryBackend } from '../backend/mem';
import { withFaults } from '../../test/helpers/fault-backend';
import type { Backend, Handle, LoadOptions } from '../backend/backend';
import { isCairnError } from '../errors';
import { Key } from '../crypto/keys';
import { seal } from '../crypto/seal';
import { base64Encode } from '../crypto/base64';
import { primitives, setPrimitives, type Primitives } from '../crypto/primitives';
import { addKey, openKeyFile, parseKeyFile, readKeyInfo, searchKey, type KeyFileJSON } from './keyfile';
import { TEST_KDF } from '../../test/helpers/test-kdf';

const master = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));
const sameKey = (a: Key, b: Key) => JSON.stringify(a.toJSON()) === JSON.stringify(b.toJSON());

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (e) {
    return isCairnError(e) ? e.code : `uncoded: ${String(e)}`;
  }
  return undefined;
}

/** Counts scrypt calls (and their parameters) on top of the installed primitives. */
function spyScrypt(): { calls: { N: number; r: number; p: number }[]; restore: () => void } {
  const original = primitives();
  const calls: { N: number; r: number; p: number }[] = [];
  const spy: Primitives = {
    ...original,
    scrypt: (pw, salt, N, r, p, dkLen) => {
      calls.push({ N, r, p });
      return original.scrypt(pw, salt, N, r, p, dkLen);
    },
  };
  setPrimitives(spy);
  return { calls, restore: () => setPrimitives(original) };
}

/** Records the order in which key files are loaded. */
function recordingBackend(inner: Backend): Backend & { loads: string[] } {
  const loads: string[] = [];
  return {
    loads,
    location: inner.location,
    connections: inner.connections,
    close: () => inner.close(),
    load: (h: Handle, o?: LoadOptions) => {
      loads.push(h.name);
      return inner.load(h, o);
    },
    list: (t, o) => inner.list(t, o),
    save: (h, d, o) => inner.save(h, d, o),
    stat: (h, o) => inner.stat(h, o),
    remove: (h, o) => inner.remove(h, o),
  };
}

async function saveRaw(be: Backend, bytes: Uint8Array | string): Promise<string> {
  const b = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  const id = createHash('sha256').update(b).digest('hex');
  await be.save({ type: 'keys', name: id }, b);
  return id;
}

async function keyJSON(be: Backend, id: string): Promise<KeyFileJSON> {
  return JSON.parse(new TextDecoder().decode(await be.load({ type: 'keys', name: id }))) as KeyFileJSON;
}

// A key file with N = 2^17, r = 8, p = 2 (rustic's memory cost, restic's p > 1), made with
// node:crypto's scrypt directly, sealing master key bytes 1…32 / 100…115 / 200…215:
//   scryptSync('big-kdf-password', salt, 64, { N: 1 << 17, r: 8, p: 2 }) → user key; data =
//   seal(user key, JSON of the master key). The salt is (i*37+11) & 255 for i = 0…63.
const BIG_KDF_KEY =
  '{"created":"2024-05-06T07:08:09.123456789Z","username":"rustic","hostname":"big","kdf":"scrypt","N":131072,"r":8,"p":2,' +
  '"salt":"CzBVep/E6Q4zWH2ix+wRNluApcrvFDleg6jN8hc8YYar0PUaP2SJrtP4HUJnjLHW+yBFao+02f4jSG2St9wBJg==",' +
  '"data":"+rVX1E1RsyKBF3bK3fQhLWIn5IuyxecCQ1BbmxKzTLXDEvZMGkDk56jaafJTrw/jvOIHYgdB0RIvhwZilAgYvVgaOJOAv5xwLvnyTMizgozVWOwhG5d8Dqr73NEFfi6Q+tLW7x9VdyeGrby9jAEqYCYBc/iegbw/cIzQmCS/uEtRI08LwMfDtM8ugUgQuP7nGtuDobG7jat8/EKmX+lDdQ=="}';

describe('key files', () => {
  beforeAll(initEngine);
  let spy: ReturnType<typeof spyScrypt> | undefined;
  afterEach(() => {
    spy?.restore();
    spy = undefined;
  });

  it('addKey writes restic key JSON named by its SHA-256; searchKey opens it', async () => {
    const be = new MemoryBackend();
    const id = await addKey(be, master, 'pw', OWNER, TEST_KDF);
    const bytes = await be.load({ type: 'keys', name: id });
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(id);
    const j = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    expect(Object.keys(j)).toEqual(['created', 'username', 'hostname', 'kdf', 'N', 'r', 'p', 'salt', 'data']);
    expect(j).toMatchObject({ created: OWNER.created, username: 'tester', hostname: 'testhost', kdf: 'scrypt', N: 1024, r: 8, p: 1 });
    expect(Buffer.from(j.salt as string, 'base64').length).toBe(64);
    // data = IV || sealed master-key JSON || tag
    expect(Buffer.from(j.data as string, 'base64').length).toBe(JSON.stringify(master.toJSON()).length + 32);
    const found = await searchKey(be, 'pw');
    expect(found.id).toBe(id);
    expect(sameKey(found.key, master)).toBe(true);
    const info = await readKeyInfo(be, id);
    expect(info).toEqual({ id, created: OWNER.created, username: 'tester', hostname: 'testhost', params: TEST_KDF });
  });

  it('two key files wrap the same master key; each password opens its own', async () => {
    const be = new MemoryBackend();
    const a = await addKey(be, master, 'first', OWNER, TEST_KDF);
    const b = await addKey(be, master, 'second', OWNER, TEST_KDF);
    expect((await searchKey(be, 'first')).id).toBe(a);
    expect((await searchKey(be, 'second')).id).toBe(b);
    expect(sameKey((await searchKey(be, 'second')).key, master)).toBe(true);
  });

  it('opens the key file restic 0.14 wrote (N=32768, r=8, p=4)', async () => {
    const fx = resticFixture();
    const name = '7db6aeaded9dfa5c3b3dc05887446401f6d8b7cf5ec05a43e150798eb8077240';
    const bytes = resticFile(`keys/${name}`);
    const j = parseKeyFile(bytes, name);
    expect([j.N, j.r, j.p]).toEqual([32768, 8, 4]);
    const key = await openKeyFile(j, fx.password, name);
    expect(key.toJSON()).toEqual(fx.masterkey);
  });

  it('opens a key with N = 2^17, r = 8, p = 2 made by node:crypto scrypt', async () => {
    spy = spyScrypt();
    const be = new MemoryBackend();
    const id = await saveRaw(be, BIG_KDF_KEY);
    const found = await searchKey(be, 'big-kdf-password');
    expect(found.id).toBe(id);
    expect([...found.key.encrypt]).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
    expect([...found.key.macK]).toEqual(Array.from({ length: 16 }, (_, i) => 100 + i));
    expect([...found.key.macR]).toEqual(Array.from({ length: 16 }, (_, i) => 200 + i));
    expect(spy.calls).toEqual([{ N: 131072, r: 8, p: 2 }]);
  });

  it('tries the hinted key first, then the others', async () => {
    const inner = new MemoryBackend();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await addKey(inner, master, `pw${i}`, OWNER, TEST_KDF));
    const listed: string[] = [];
    for await (const fi of inner.list('keys')) listed.push(fi.name);
    const last = listed[listed.length - 1]!;
    const be = recordingBackend(inner);
    const found = await searchKey(be, `pw${ids.indexOf(last)}`, { keyHint: last.slice(0, 10) });
    expect(found.id).toBe(last);
    expect(be.loads).toEqual([last]); // only the hinted one was needed

    // A wrong hint costs one attempt, then the rest are tried in listing order.
    const be2 = recordingBackend(inner);
    const target = listed[1]!;
    const found2 = await searchKey(be2, `pw${ids.indexOf(target)}`, { keyHint: listed[2]!.slice(0, 8) });
    expect(found2.id).toBe(target);
    expect(be2.loads).toEqual([listed[2], listed[0], listed[1]]);

    // A hint that matches nothing is ignored.
    const be3 = recordingBackend(inner);
    await searchKey(be3, `pw${ids.indexOf(listed[0]!)}`, { keyHint: 'ffffffffffff' });
    expect(be3.loads).toEqual([listed[0]]);
  });

  describe('which error wins', () => {
    it('NO_KEY when there are no key files', async () => {
      expect(await codeOf(searchKey(new MemoryBackend(), 'pw'))).toBe('NO_KEY');
    });

    it('WRONG_PASSWORD when every key is readable but none opens', async () => {
      const be = new MemoryBackend();
      await addKey(be, master, 'a', OWNER, TEST_KDF);
      await addKey(be, master, 'b', OWNER, TEST_KDF);
      expect(await codeOf(searchKey(be, 'c'))).toBe('WRONG_PASSWORD');
    });

    it('BAD_KEY_FILE when the only keys are unreadable', async () => {
      const be = new MemoryBackend();
      const id = await saveRaw(be, '{"kdf":"scrypt","N":1024,"r":8,"p":1,"salt":"');
      const e = await searchKey(be, 'pw').catch((x: unknown) => x);
      expect(isCairnError(e, 'BAD_KEY_FILE')).toBe(true);
      expect((e as { detail: { key: string } }).detail.key).toBe(id);
    });

    it('WRONG_PASSWORD (naming the skipped file) when a readable key exists next to a broken one', async () => {
      const be = new MemoryBackend();
      await saveRaw(be, 'garbage');
      await addKey(be, master, 'a', OWNER, TEST_KDF);
      const e = await searchKey(be, 'nope').catch((x: unknown) => x);
      expect(isCairnError(e, 'WRONG_PASSWORD')).toBe(true);
      expect((e as Error).message).toMatch(/1 unreadable key file\(s\) skipped/);
    });

    it('a key file of a megabyte is refused unread (it could have been gigabytes); the good one still opens', async () => {
      const be = new MemoryBackend();
      const huge = await saveRaw(be, `{"kdf":"scrypt","pad":"${'x'.repeat(1 << 20)}"}`);
      const loads: string[] = [];
      const watched: Backend = { ...be, list: (t, o) => be.list(t, o), load: (h, o) => (loads.push(h.name), be.load(h, o)) } as Backend;
      const e = await searchKey(watched, 'pw').catch((x: unknown) => x);
      expect(isCairnError(e, 'BAD_KEY_FILE') && e.message).toBe(`key ${huge.slice(0, 8)}: ${(1 << 20) + 25} bytes, not a key file`);
      expect(loads).toEqual([]);
      const id = await addKey(be, master, 'a', OWNER, TEST_KDF);
      expect((await searchKey(watched, 'a')).id).toBe(id);
      expect(loads).toEqual([id]);
    });

    it('a broken key does not stop a good one from opening', async () => {
      const be = new MemoryBackend();
      await saveRaw(be, 'garbage');
      await saveRaw(be, JSON.stringify({ kdf: 'scrypt', N: 1024, r: 8, p: 1, salt: base64Encode(new Uint8Array(8)), data: 'AAAA' }));
      const id = await addKey(be, master, 'a', OWNER, TEST_KDF);
      expect((await searchKey(be, 'a')).id).toBe(id);
    });

    it('a key removed between list and load is skipped', async () => {
      const inner = new MemoryBackend();
      const gone = await addKey(inner, master, 'a', OWNER, TEST_KDF);
      const stays = await addKey(inner, master, 'a', OWNER, TEST_KDF);
      const be = recordingBackend(inner);
      // The hinted key vanishes just before it is read: the backend's own NOT_FOUND.
      be.load = async (h, o) => {
        if (h.name === gone) await inner.remove(h).catch(() => {});
        return inner.load(h, o);
      };
      expect((await searchKey(be, 'a', { keyHint: gone.slice(0, 12) })).id).toBe(stays);
    });

    it('a backend failure is not mistaken for a wrong password', async () => {
      const inner = new MemoryBackend();
      await addKey(inner, master, 'a', OWNER, TEST_KDF);
      const be = withFaults(inner, { ops: ['load'], failFirst: 1 });
      expect(await codeOf(searchKey(be, 'a'))).toBe('NETWORK');
    });
  });

  describe('malformed key files are BAD_KEY_FILE', () => {
    const good = async () => {
      const be = new MemoryBackend();
      const id = await addKey(be, master, 'pw', OWNER, TEST_KDF);
      return keyJSON(be, id);
    };
    const cases: [string, (j: KeyFileJSON) => string | Uint8Array][] = [
      ['truncated JSON', (j) => JSON.stringify(j).slice(0, 60)],
      ['not UTF-8', () => Uint8Array.of(0x7b, 0xff, 0xfe, 0x7d)],
      ['a JSON array', () => '[]'],
      ['null', () => 'null'],
      ['another KDF', (j) => JSON.stringify({ ...j, kdf: 'argon2id' })],
      ['missing salt', (j) => JSON.stringify({ ...j, salt: undefined })],
      ['salt of 32 bytes', (j) => JSON.stringify({ ...j, salt: base64Encode(seededBytes(1, 32)) })],
      ['salt not base64', (j) => JSON.stringify({ ...j, salt: '%%%%' })],
      ['data not base64', (j) => JSON.stringify({ ...j, data: 'not base64!' })],
    ];
    it.each(cases)('%s', async (_what, mutate) => {
      const be = new MemoryBackend();
      await saveRaw(be, mutate(await good()));
      expect(await codeOf(searchKey(be, 'pw'))).toBe('BAD_KEY_FILE');
    });

    it('a sealed payload that is not a master key', async () => {
      // Correct password, but the sealed plaintext is junk or an all-zero key.
      const salt = seededBytes(5, 64);
      const user = Key.fromKdfOutput(await primitives().scrypt(new TextEncoder().encode('pw'), salt, 1024, 8, 1, 64));
      for (const payload of [
        'not json',
        '{"mac":{"k":"AAAAAAAAAAAAAAAAAAAAAA==","r":"AAAAAAAAAAAAAAAAAAAAAA=="},"encrypt":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}',
      ]) {
        const j: KeyFileJSON = {
          created: '',
          username: '',
          hostname: '',
          kdf: 'scrypt',
          N: 1024,
          r: 8,
          p: 1,
          salt: base64Encode(salt),
          data: base64Encode(await seal(user, new TextEncoder().encode(payload))),
        };
        expect(await codeOf(openKeyFile(j, 'pw', 'x'.repeat(64)))).toBe('BAD_KEY_FILE');
        expect(await codeOf(openKeyFile(j, 'other', 'x'.repeat(64)))).toBe('WRONG_PASSWORD');
      }
    });
  });

  describe('scrypt parameters', () => {
    const absurd: [string, Partial<Record<'N' | 'r' | 'p', unknown>>][] = [
      ['N = 0', { N: 0 }],
      ['N = 1', { N: 1 }],
      ['N not a power of two', { N: 1000 }],
      ['N negative', { N: -1024 }],
      ['N fractional', { N: 1024.5 }],
      ['N a string', { N: '1024' }],
      ['N missing', { N: undefined }],
      ['N = 2^21', { N: 2 ** 21 }],
      ['N = 2^32', { N: 2 ** 32 }],
      ['N = 2^40', { N: 2 ** 40 }],
      ['N = 1e300', { N: 1e300 }],
      ['r = 0', { r: 0 }],
      ['r = 1e6', { r: 1e6 }],
      ['p = 0', { p: 0 }],
      ['p = 2^30', { p: 2 ** 30 }],
      ['N = 2^20 with r = 64 (8 GiB)', { N: 2 ** 20, r: 64 }],
      ['N = 2^18 with r = 64 (2 GiB)', { N: 2 ** 18, r: 64 }],
    ];
    it.each(absurd)('refuses %s before running scrypt', async (_what, change) => {
      const be = new MemoryBackend();
      const id = await addKey(be, master, 'pw', OWNER, TEST_KDF);
      const j = { ...(await keyJSON(be, id)), ...change };
      const be2 = new MemoryBackend();
      await saveRaw(be2, JSON.stringify(j));
      spy = spyScrypt();
      expect(await codeOf(searchKey(be2, 'pw'))).toBe('BAD_KEY_FILE');
      expect(spy.calls).toEqual([]);
      // addKey refuses the same parameters for new keys.
      if (typeof j.N === 'number' && typeof j.r === 'number' && typeof j.p === 'number') {
        expect(await codeOf(addKey(new MemoryBackend(), master, 'pw', OWNER, { N: j.N, r: j.r, p: j.p }))).toBe('BAD_KEY_FILE');
      }
      expect(spy.calls).toEqual([]);
    });

    it.each([[{ N: 2, r: 1, p: 1 }], [{ N: 1024, r: 1, p: 3 }], [{ N: 512, r: 16, p: 2 }]])('accepts small valid parameters %o', async (params) => {
      const be = new MemoryBackend();
      await addKey(be, master, 'pw', OWNER, params);
      expect(sameKey((await searchKey(be, 'pw')).key, master)).toBe(true);
    });
  });
});
