import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_TYPES, type Handle } from '../../core/backend/backend';
import { backendConformanceSuite, expectBytes, expectCode, listAll, testObject } from '../../test/helpers/backend-conformance';
import { LocalBackend } from './local-backend';

const run = promisify(execFile);

async function tempDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'cairn-local-'));
}

async function removeTree(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}

backendConformanceSuite('LocalBackend', async () => {
  const dir = await tempDir();
  return { backend: await LocalBackend.create(path.join(dir, 'repo')), cleanup: () => removeTree(dir) };
});

describe('LocalBackend on disk', () => {
  let dir: string;
  let repo: string;
  beforeEach(async () => {
    dir = await tempDir();
    repo = path.join(dir, 'repo');
  });
  afterEach(() => removeTree(dir));

  it('creates the directories restic 0.14 creates, and no others', async () => {
    await LocalBackend.create(repo);
    expect((await fs.readdir(repo)).sort()).toEqual(['data', 'index', 'keys', 'locks', 'snapshots']);
    const sub = (await fs.readdir(path.join(repo, 'data'))).sort();
    expect(sub.length).toBe(256);
    expect(sub[0]).toBe('00');
    expect(sub[255]).toBe('ff');
    expect((await fs.stat(path.join(repo, 'data', 'ab'))).mode & 0o777 & ~process.umask()).toBe(0o700 & ~process.umask());
  });

  it('refuses to create over an existing config', async () => {
    const be = await LocalBackend.create(repo);
    await LocalBackend.create(repo); // no config yet: harmless
    await be.save({ type: 'config', name: '' }, new Uint8Array([1, 2, 3]));
    await expectCode(LocalBackend.create(repo), 'REPO_EXISTS');
  });

  it('stores a pack at data/<2 hex>/<id>, read-only, with no temp file left', async () => {
    const be = await LocalBackend.create(repo);
    const { h, data } = await testObject('data', 1, 1000);
    await be.save(h, data);
    const file = path.join(repo, 'data', h.name.slice(0, 2), h.name);
    expectBytes(new Uint8Array(await fs.readFile(file)), data);
    expect((await fs.stat(file)).mode & 0o777).toBe(0o400);
    expect(await fs.readdir(path.dirname(file))).toEqual([h.name]);
    await be.save(h, data); // over a read-only file
    await be.remove(h);
    expect(await fs.readdir(path.dirname(file))).toEqual([]);
  });

  it('makes group-readable files when the config is group-readable (as restic)', async () => {
    const be = await LocalBackend.create(repo);
    await be.save({ type: 'config', name: '' }, new Uint8Array([1]));
    await fs.chmod(path.join(repo, 'config'), 0o440);
    const reopened = await LocalBackend.open(repo);
    const { h, data } = await testObject('keys', 2, 10);
    await reopened.save(h, data);
    expect((await fs.stat(path.join(repo, 'keys', h.name))).mode & 0o777).toBe(0o440);
  });

  it('recreates a missing sub-directory on save', async () => {
    const be = await LocalBackend.create(repo);
    const { h, data } = await testObject('data', 3, 10);
    await fs.rmdir(path.join(repo, 'data', h.name.slice(0, 2)));
    await be.save(h, data);
    expectBytes(await be.load(h), data);
  });

  it('lists only objects: no temp files, dot files, directories or stray files in data/', async () => {
    const be = await LocalBackend.create(repo);
    const { h, data } = await testObject('data', 4, 10);
    await be.save(h, data);
    const sub = path.join(repo, 'data', h.name.slice(0, 2));
    await fs.writeFile(path.join(sub, `${h.name}-tmp-123456`), 'partial');
    await fs.writeFile(path.join(sub, '.DS_Store'), 'x');
    await fs.mkdir(path.join(sub, 'nested'));
    await fs.writeFile(path.join(repo, 'data', 'stray'), 'x');
    await fs.writeFile(path.join(repo, 'index', 'foo.crswap'), 'x');
    expect(await listAll(be, 'data')).toEqual([{ name: h.name, size: 10 }]);
    expect(await listAll(be, 'index')).toEqual([]);
  });

  it('lists a missing type directory as empty', async () => {
    const be = await LocalBackend.create(repo);
    await fs.rm(path.join(repo, 'locks'), { recursive: true });
    expect(await listAll(be, 'locks')).toEqual([]);
  });

  it.each(['../escape', 'a/b', '', 'x-tmp-1', 'a'])('rejects the unsafe or invalid name %j', async (name) => {
    const be = await LocalBackend.create(repo);
    const h: Handle = { type: 'data', name };
    await expectCode(be.save(h, new Uint8Array(1)), 'INTERNAL');
    await expectCode(be.load(h), 'INTERNAL');
  });
});

describe('LocalBackend with the real restic', () => {
  const env = { ...process.env, RESTIC_PASSWORD: 'cairn-test' };
  const restic = (...args: string[]) => run('restic', ['--no-cache', '--quiet', ...args], { env });
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => removeTree(dir));

  it('makes a layout restic accepts', async () => {
    const repo = path.join(dir, 'repo');
    await LocalBackend.create(repo);
    // Without a config restic stops at the config, not at the layout …
    const e = await restic('-r', repo, 'cat', 'config').then(
      () => undefined,
      (err: { stderr: string }) => err,
    );
    expect(e?.stderr).toMatch(/unable to open config file/);
    // … and `init` into our tree succeeds.
    await restic('-r', repo, 'init');
    expect(await listAll(await LocalBackend.open(repo), 'keys')).toHaveLength(1);
  });

  it('reads a repository restic made, and copies it object by object into one restic checks clean', async () => {
    const src = path.join(dir, 'src');
    const files = path.join(dir, 'files');
    await fs.mkdir(files);
    for (let i = 0; i < 5; i++) await fs.writeFile(path.join(files, `f${i}`), `file ${i} `.repeat(2000 * (i + 1)));
    await restic('-r', src, 'init');
    await restic('-r', src, 'backup', files);

    const from = await LocalBackend.open(src);
    const keys = await listAll(from, 'keys');
    expect(keys.length).toBe(1);
    const key = JSON.parse(new TextDecoder().decode(await from.load({ type: 'keys', name: keys[0]!.name })));
    expect(key.kdf).toBe('scrypt');
    expect((await from.load({ type: 'config', name: '' })).length).toBe((await from.stat({ type: 'config', name: '' })).size);

    const to = await LocalBackend.create(path.join(dir, 'copy'));
    for (const type of FILE_TYPES) {
      for (const fi of await listAll(from, type)) {
        const h: Handle = { type, name: fi.name };
        await to.save(h, await from.load(h));
      }
    }
    expect((await listAll(to, 'data')).length).toBeGreaterThan(0);
    await restic('-r', path.join(dir, 'copy'), 'check', '--read-data');
    const { stdout } = await restic('-r', path.join(dir, 'copy'), 'snapshots', '--json');
    expect(JSON.parse(stdout)).toHaveLength(1);
  });
});
