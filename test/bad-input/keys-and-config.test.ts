// Bad input: wrong password, truncated or corrupt key files, a config of an unknown
// version. Each gives a clear, coded one-line error and changes nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, cp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, ok, removeDir, restic, tempDir } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { seal } from '../../core/crypto/seal';

describe('bad keys and config', () => {
  let dir: string, pristine: string;
  let n = 0;
  const fresh = async () => {
    const repo = join(dir, `repo${n++}`);
    await cp(pristine, repo, { recursive: true });
    return repo;
  };
  const keyFile = async (repo: string) => join(repo, 'keys', (await readdir(join(repo, 'keys')))[0]!);

  beforeAll(async () => {
    dir = await tempDir('bad-keys');
    pristine = join(dir, 'pristine');
    await ok(cairn(['-r', pristine, 'init']));
  });
  afterAll(() => removeDir(dir));

  it('refuses a wrong password', async () => {
    const r = await cairn(['-r', pristine, 'snapshots'], { env: { RESTIC_PASSWORD: 'wrong' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^WRONG_PASSWORD: /);
  });

  it('names a truncated key file', async () => {
    const repo = await fresh();
    const k = await keyFile(repo);
    const bytes = await readFile(k);
    await chmod(k, 0o600);
    await writeFile(k, bytes.subarray(0, bytes.length >> 1));
    const r = await cairn(['-r', repo, 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^BAD_KEY_FILE: key [0-9a-f]{8}: not valid JSON \(truncated or corrupt key file\)/);
  });

  it('names a key file with garbage, bad base64 or a short salt', async () => {
    for (const mutate of [
      (_j: Record<string, unknown>) => 'this is not json at all',
      (j: Record<string, unknown>) => JSON.stringify({ ...j, data: '!!!not base64!!!' }),
      (j: Record<string, unknown>) => JSON.stringify({ ...j, salt: 'c2hvcnQ=' }),
      (j: Record<string, unknown>) => JSON.stringify({ ...j, kdf: 'argon2' }),
      (j: Record<string, unknown>) => JSON.stringify({ ...j, N: 1000 }),
    ]) {
      const repo = await fresh();
      const k = await keyFile(repo);
      const j = JSON.parse(await readFile(k, 'utf8')) as Record<string, unknown>;
      await chmod(k, 0o600);
      await writeFile(k, mutate(j));
      const r = await cairn(['-r', repo, 'snapshots']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^BAD_KEY_FILE: key [0-9a-f]{8}: /);
    }
  });

  it('reports a repository without key files', async () => {
    const repo = await fresh();
    await rm(await keyFile(repo));
    const r = await cairn(['-r', repo, 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^NO_KEY: /);
  });

  it('reports a missing repository', async () => {
    const r = await cairn(['-r', join(dir, 'nothing-here'), 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^NOT_A_REPOSITORY: /);
  });

  it('refuses a config with an unknown version, naming it', async () => {
    const repo = await fresh();
    const r0 = await openLocal(repo);
    const config = { version: 3, id: r0.config.id, chunker_polynomial: r0.config.chunkerPolynomial.toString(16) };
    await chmod(join(repo, 'config'), 0o600);
    await writeFile(join(repo, 'config'), await seal(r0.key, new TextEncoder().encode(JSON.stringify(config))));
    const r = await cairn(['-r', repo, 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^BAD_CONFIG: unsupported repository version 3/);
    // restic agrees that this is not a repository it can use.
    expect((await restic(['-r', repo, 'snapshots'], { env: { RESTIC_PASSWORD: 'test-password' } })).code).not.toBe(0);
  });

  it('refuses a config that does not decrypt', async () => {
    const repo = await fresh();
    const c = await readFile(join(repo, 'config'));
    c[c.length - 1]! ^= 1;
    await chmod(join(repo, 'config'), 0o600);
    await writeFile(join(repo, 'config'), c);
    const r = await cairn(['-r', repo, 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^BAD_CONFIG: /);
  });
});
