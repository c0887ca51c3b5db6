// cairn key on a repository restic made: list/add/passwd/remove print what restic prints and
// refuse what restic refuses; key add --from-masterkey turns a kept `cat masterkey` into a new
// password that restic 0.14 opens the repository with.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cairn, ok, removeDir, restic, tempDir, TEST_ENV } from '../helpers/cli';
import { resticInit } from '../helpers/restic-repo';

describe('cairn key', () => {
  let dir: string, repo: string;
  const pw = async (name: string, text: string) => {
    const f = join(dir, name);
    await writeFile(f, text + '\n');
    return f;
  };
  const keyFiles = async () => (await readdir(join(repo, 'keys'))).sort();

  beforeAll(async () => {
    dir = await tempDir('keys');
    repo = join(dir, 'repo');
    await resticInit(repo);
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('key add --from-masterkey: a new password from the master key alone, which restic opens the repository with', async () => {
    const mk = join(dir, 'masterkey.json');
    await writeFile(mk, (await ok(restic(['-r', repo, 'cat', 'masterkey']))).stdout);
    const r = await ok(
      cairn(['-r', repo, 'key', 'add', '--from-masterkey', mk, '--new-password-file', await pw('pw-mk', 'recovered')], { env: { RESTIC_PASSWORD: undefined } }),
    );
    const id = /^saved new key with ID ([0-9a-f]{64})\n$/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    expect(await keyFiles()).toContain(id);
    const list = await ok(restic(['-r', repo, 'key', 'list', '--json'], { env: { RESTIC_PASSWORD: 'recovered' } }));
    expect((JSON.parse(list.stdout) as { id: string; current: boolean }[]).find((k) => k.current)!.id).toBe(id!.slice(0, 8));
  });

  it('key add --from-masterkey refuses another repository’s master key and writes nothing', async () => {
    const other = join(dir, 'other');
    await ok(cairn(['-r', other, 'init']));
    const mk = join(dir, 'other-masterkey.json');
    await writeFile(mk, (await ok(cairn(['-r', other, 'cat', 'masterkey']))).stdout);
    const before = await keyFiles();
    const r = await cairn(['-r', repo, 'key', 'add', '--from-masterkey', mk, '--new-password-file', await pw('pw-x', 'x')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^WRONG_PASSWORD: the master key does not open this repository/);
    expect(await keyFiles()).toEqual(before);
  });

  it('list, add, passwd and remove print what restic prints; the key in use cannot be removed', async () => {
    const added = await ok(cairn(['-r', repo, 'key', 'add', '--new-password-file', await pw('pw-2', 'second'), '--user', 'alice', '--host', 'box']));
    const id2 = /saved new key with ID ([0-9a-f]{64})/.exec(added.stdout)![1]!;
    const mine = JSON.parse((await ok(cairn(['-r', repo, 'key', 'list', '--json']))).stdout) as Record<string, unknown>[];
    const theirs = JSON.parse((await ok(restic(['-r', repo, 'key', 'list', '--json']))).stdout) as Record<string, unknown>[];
    // restic 0.14 shows short IDs in JSON, 0.18 (and cairn) full ones; the rest is the same.
    const norm = (l: Record<string, unknown>[]) => l.map((k) => ({ ...k, id: String(k.id).slice(0, 8) })).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(norm(mine)).toEqual(norm(theirs));
    expect(Object.keys(mine[0]!)).toEqual(['current', 'id', 'userName', 'hostName', 'created']);
    const table = (s: string) => s.trim().split('\n').sort();
    expect(table((await ok(cairn(['-r', repo, 'key', 'list']))).stdout.replace(/^repository .*\n/, ''))).toEqual(
      table((await ok(restic(['-r', repo, 'key', 'list']))).stdout),
    );

    const current = (mine.find((k) => k.current)!.id as string).slice(0, 8);
    const refused = await cairn(['-r', repo, 'key', 'remove', current]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refusing to remove key currently used to access repository/);
    const removed = await ok(cairn(['-r', repo, 'key', 'remove', id2.slice(0, 8)]));
    expect(removed.stdout).toMatch(new RegExp(`removed key ${id2}\\n$`));
    expect((await restic(['-r', repo, 'cat', 'config'], { env: { RESTIC_PASSWORD: 'second' } })).code).not.toBe(0);

    const changed = await ok(cairn(['-r', repo, 'key', 'passwd', '--new-password-file', await pw('pw-3', 'third')]));
    expect(changed.stdout).toMatch(/saved new key as <Key of .*@.*, created on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} \S+>\n$/);
    expect((await restic(['-r', repo, 'cat', 'config'], { env: { RESTIC_PASSWORD: 'third' } })).code).toBe(0);
    expect((await restic(['-r', repo, 'cat', 'config'], { env: { RESTIC_PASSWORD: TEST_ENV.RESTIC_PASSWORD } })).code).not.toBe(0);
  });

  it('refuses an empty new password, and arguments where restic takes none', async () => {
    const empty = await cairn(['-r', repo, 'key', 'add', '--new-password-file', await pw('pw-empty', '  ')], { env: { RESTIC_PASSWORD: 'third' } });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/an empty password is not allowed/);
    const extra = await cairn(['-r', repo, 'key', 'list', 'x'], { env: { RESTIC_PASSWORD: 'third' } });
    expect(extra.stderr).toMatch(/^USAGE: the key list command expects no arguments/);
  });
});
