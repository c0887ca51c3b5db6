// One flipped byte, a truncation or a deletion of each kind of object — pack, index,
// snapshot, key, config, lock — in a copy of one small repository. `cairn check` names what is
// damaged (pack ID and blob, and the files that lose data; index, snapshot, key and lock file
// names), and each row records what restic 0.14's check says about the same repository.
// Snapshots that cannot be read are named wherever snapshots are listed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmod, cp, mkdir, opendir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createCipheriv } from 'node:crypto';
import { join } from 'node:path';
import { cairn, ok, removeDir, restic, tempDir, type RunResult } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { encodeLock } from '../../core/repository/lock';
import { GoTime } from '../../core/data/go-time';

type Kind = 'pack' | 'index' | 'snapshot' | 'key' | 'config' | 'lock';
type Damage = 'flip' | 'truncate' | 'delete';

interface Row {
  kind: Kind;
  damage: Damage;
  /** `check --read-data` where only reading data can see it. */
  readData?: boolean;
  /** What cairn says (stdout + stderr), and its exit code. */
  cairn: { code: number; says: (v: Victim) => (string | RegExp)[] };
  /** What restic 0.14's check says about the same repository (one of these exit codes). */
  restic: { code: number | number[]; says: (v: Victim) => (string | RegExp)[] };
}

interface Victim {
  /** The damaged object's ID (or 'config'). */
  id: string;
  /** Its first eight hex digits. */
  short: string;
  /** The file of `big.bin` in the source, as check names it. */
  file: string;
}

const ROWS: Row[] = [
  {
    kind: 'pack',
    damage: 'flip',
    readData: true,
    cairn: {
      code: 1,
      says: (v) => [
        `pack ${v.id}: ID does not match`,
        new RegExp(`pack ${v.id}: blob [0-9a-f]{64} \\(data, offset \\d+\\): fails authentication`),
        `used by ${v.file}`,
      ],
    },
    restic: { code: 1, says: (v) => [`Pack ID does not match, want ${v.id}`] },
  },
  {
    kind: 'pack',
    damage: 'truncate',
    cairn: { code: 1, says: (v) => [new RegExp(`pack ${v.id}: unexpected file size: got \\d+, expected \\d+`)] },
    restic: { code: 1, says: (v) => [new RegExp(`pack ${v.id}: unexpected file size: got \\d+, expected \\d+`)] },
  },
  {
    kind: 'pack',
    damage: 'delete',
    cairn: { code: 1, says: (v) => [`pack ${v.id}: does not exist; used by ${v.file}`] },
    restic: { code: 1, says: (v) => [`pack ${v.id}: does not exist`] },
  },
  ...(['flip', 'truncate'] as const).map((damage): Row => ({
    kind: 'index',
    damage,
    cairn: { code: 1, says: (v) => [`error loading index ${v.short}: content does not match its name`, 'not found in index'] },
    restic: { code: 1, says: (v) => [`error loading index ${v.id}: load <index/${v.id.slice(0, 10)}>: invalid data returned`] },
  })),
  {
    kind: 'index',
    damage: 'delete',
    cairn: { code: 1, says: () => [/pack [0-9a-f]{64} not referenced in any index/, /snapshot [0-9a-f]{8}: tree [0-9a-f]{8} not found in index/] },
    restic: { code: 1, says: () => [/pack [0-9a-f]{64}: not referenced in any index/, /error for tree [0-9a-f]{8}:/] },
  },
  ...(['flip', 'truncate'] as const).map((damage): Row => ({
    kind: 'snapshot',
    damage,
    cairn: { code: 1, says: (v) => [`error: snapshot ${v.short}: content does not match its name`] },
    restic: { code: 1, says: (v) => [`error: load <snapshot/${v.id.slice(0, 10)}>: invalid data returned`] },
  })),
  // A snapshot removed is a snapshot forgotten: nothing to see, for either.
  { kind: 'snapshot', damage: 'delete', cairn: { code: 0, says: () => ['no errors were found'] }, restic: { code: 0, says: () => ['no errors were found'] } },
  // The second key (the test password opens the first). restic is told which key to use
  // (RESTIC_KEY_HINT), so it never reads the damaged one; its check does not look at keys. What
  // restic does without the hint depends on the listing order: see the test below the table.
  ...(['flip', 'truncate'] as const).map((damage): Row => ({
    kind: 'key',
    damage,
    cairn: { code: 1, says: (v) => [`error: key ${v.short}: content does not match its name (damaged key file)`] },
    restic: { code: 0, says: () => ['no errors were found'] },
  })),
  { kind: 'key', damage: 'delete', cairn: { code: 0, says: () => ['no errors were found'] }, restic: { code: 0, says: () => ['no errors were found'] } },
  ...(['flip', 'truncate'] as const).map((damage): Row => ({
    kind: 'config',
    damage,
    cairn: { code: 1, says: () => [/^BAD_CONFIG: config cannot be read: fails authentication with key [0-9a-f]{8} \(the config, or that key, is damaged\)$/m] },
    restic: { code: 1, says: () => [/Fatal: config or key [0-9a-f]{64} is damaged: ciphertext verification failed/] },
  })),
  {
    kind: 'config',
    damage: 'delete',
    cairn: { code: 1, says: () => [/^NOT_A_REPOSITORY: no repository at .* \(config file not found\)$/m] },
    restic: { code: 1, says: () => ['Fatal: unable to open config file'] },
  },
  // A stale lock left by a process that is gone: unreadable, it is a warning (not honoured).
  ...(['flip', 'truncate'] as const).map((damage): Row => ({
    kind: 'lock',
    damage,
    cairn: {
      code: 0,
      says: (v) => [`warning: lock ${v.short}: content does not match its name (cairn unlock --remove-all removes it)`, 'no errors were found'],
    },
    restic: { code: 0, says: () => ['no errors were found'] },
  })),
  { kind: 'lock', damage: 'delete', cairn: { code: 0, says: () => ['no errors were found'] }, restic: { code: 0, says: () => ['no errors were found'] } },
];

const HEX64 = /^[0-9a-f]{64}$/;

async function ids(repo: string, dir: string): Promise<string[]> {
  return (await readdir(join(repo, dir), { recursive: true })).map((f) => f.split('/').pop()!).filter((f) => HEX64.test(f));
}

describe('a damaged object of each kind', () => {
  let dir: string, src: string, pristine: string, file: string, goodKey: string;
  const victims = new Map<Kind, { id: string; path: string }>();

  beforeAll(async () => {
    dir = await tempDir('corruption');
    src = join(dir, 'src');
    pristine = join(dir, 'pristine');
    await mkdir(src);
    await writeFile(join(src, 'big.bin'), createCipheriv('aes-256-ctr', Buffer.alloc(32, 9), Buffer.alloc(16)).update(Buffer.alloc(300_000)));
    await writeFile(join(src, 'small.txt'), 'small\n');
    file = join(src, 'big.bin');
    await ok(cairn(['-r', pristine, 'init']));
    await ok(cairn(['-r', pristine, 'backup', src]));
    await writeFile(join(dir, 'pw2'), 'second password\n');
    await ok(cairn(['-r', pristine, 'key', 'add', '--new-password-file', join(dir, 'pw2')]));
    const repo = await openLocal(pristine);
    await repo.loadIndex();
    const pack = [...repo.index.entries()].find((b) => b.length > 200_000)!.packID;
    const keys = await ids(pristine, 'keys');
    goodKey = repo.keyID;
    const snapshot = (await ids(pristine, 'snapshots'))[0]!;
    const index = (await ids(pristine, 'index'))[0]!;
    victims.set('pack', { id: pack, path: `data/${pack.slice(0, 2)}/${pack}` });
    victims.set('index', { id: index, path: `index/${index}` });
    victims.set('snapshot', { id: snapshot, path: `snapshots/${snapshot}` });
    victims.set('key', { id: keys.find((k) => k !== repo.keyID)!, path: `keys/${keys.find((k) => k !== repo.keyID)!}` });
    victims.set('config', { id: 'config', path: 'config' });
  }, 60_000);
  afterAll(() => removeDir(dir));

  const damaged = async (kind: Kind, damage: Damage): Promise<{ repo: string; v: Victim }> => {
    const repo = join(dir, `${kind}-${damage}`);
    await cp(pristine, repo, { recursive: true });
    if (kind === 'lock') {
      // A stale lock (another host, an hour ago): cairn does not honour it; restic 0.14 does (its
      // check refuses to start until `unlock`), so only these rows have one.
      const r = await openLocal(repo);
      const lock = await r.saveJSON(
        'locks',
        encodeLock({ time: GoTime.fromMillis(Date.now() - 3_600_000, 0), exclusive: false, hostname: 'gone', username: 'u', pid: 1 }),
      );
      victims.set('lock', { id: lock, path: `locks/${lock}` });
    }
    const { id, path } = victims.get(kind)!;
    const at = join(repo, path);
    await chmod(at, 0o600);
    const bytes = await readFile(at);
    if (damage === 'delete') await rm(at);
    else if (damage === 'truncate') await writeFile(at, bytes.subarray(0, bytes.length - 7));
    else {
      bytes[bytes.length >> 1]! ^= 0x10;
      await writeFile(at, bytes);
    }
    return { repo, v: { id, short: id.slice(0, 8), file: `${file} (snapshot ` } };
  };

  const expectSays = (r: RunResult, code: number | number[], says: (string | RegExp)[]) => {
    const all = r.stdout + r.stderr;
    for (const s of says) expect(all, all).toMatch(typeof s === 'string' ? new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : s);
    expect([code].flat(), all).toContain(r.code);
  };

  it.concurrent.each(ROWS.map((r) => [`${r.kind} ${r.damage}`, r] as const))('%s', async (_, row) => {
    const { repo, v } = await damaged(row.kind, row.damage);
    const args = ['-r', repo, 'check', ...(row.readData ? ['--read-data'] : [])];
    expectSays(await cairn(args), row.cairn.code, row.cairn.says(v));
    expectSays(
      await restic(['--no-cache', ...args], { env: { RESTIC_PASSWORD: 'test-password', RESTIC_KEY_HINT: goodKey } }),
      row.restic.code,
      row.restic.says(v),
    );
  });

  /** Key file names in the order the file system lists them: restic 0.14 tries keys in this order (Node's readdir sorts; opendir does not). */
  async function listingOrder(keysDir: string): Promise<string[]> {
    const names: string[] = [];
    for await (const e of await opendir(keysDir)) if (HEX64.test(e.name)) names.push(e.name);
    return names;
  }

  // Which key is damaged is chosen by where the file system lists it, so both orders are
  // tested on every host: ext4 lists by a hash of the name, other file systems by creation.
  it.each([
    ['first', 'stops with a fatal error before it reaches the key the password opens', 0],
    ['second', 'never reads it: the key listed first opens', 1],
  ] as const)('an unparseable key listed %s: restic 0.14 %s; cairn names it either way', async (_, _says, damagedAt) => {
    const repo = join(dir, `key-listed-${damagedAt}`);
    await cp(pristine, repo, { recursive: true });
    const order = await listingOrder(join(repo, 'keys'));
    expect(order).toHaveLength(2);
    const damagedKey = order[damagedAt]!,
      openingKey = order[1 - damagedAt]!;
    const password = openingKey === goodKey ? 'test-password' : 'second password';
    const at = join(repo, 'keys', damagedKey);
    await chmod(at, 0o600);
    const bytes = await readFile(at);
    await writeFile(at, bytes.subarray(0, bytes.length - 7));
    expect(await listingOrder(join(repo, 'keys'))).toEqual(order);

    const env = { RESTIC_PASSWORD: password };
    const plain = await restic(['--no-cache', '-r', repo, 'check'], { env });
    if (damagedAt === 0) expect([plain.code, plain.stderr]).toEqual([1, expect.stringContaining('Fatal: Unmarshal: unexpected end of JSON input')]);
    else expect([plain.code, plain.stdout]).toEqual([0, expect.stringContaining('no errors were found')]);
    // Told which key to use, restic opens it whatever the order.
    const hinted = await restic(['--no-cache', '-r', repo, 'check'], { env: { ...env, RESTIC_KEY_HINT: openingKey } });
    expect([hinted.code, hinted.stdout]).toEqual([0, expect.stringContaining('no errors were found')]);

    const c = await cairn(['-r', repo, 'check'], { env });
    expect(c.code).toBe(1);
    expect(c.stdout + c.stderr).toContain(`error: key ${damagedKey.slice(0, 8)}: content does not match its name (damaged key file)`);
  });

  it('a damaged snapshot is named by snapshots, restore latest and ls latest; an older one restores by ID', async () => {
    const { repo, v } = await damaged('snapshot', 'flip');
    const list = await cairn(['-r', repo, 'snapshots']);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe(`error: snapshot ${v.short}: content does not match its name\n`);
    for (const args of [
      ['restore', 'latest', '--target', join(dir, 'nope')],
      ['ls', 'latest'],
    ]) {
      const r = await cairn(['-r', repo, ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `BAD_SNAPSHOT: snapshot ${v.short}: content does not match its name; cannot tell which snapshot is the latest: name one by its ID (cairn snapshots)\n`,
      );
    }
    // restic 0.14 says the same of latest: "latest snapshot for criteria not found: Error loading snapshot …".
    const rr = await restic(['--no-cache', '-r', repo, 'restore', 'latest', '--target', join(dir, 'nope')]);
    expect([rr.code, rr.stderr]).toEqual([1, expect.stringContaining(`Error loading snapshot ${v.short}`)]);
  });

  it('the only key this password opens, damaged: said so, not just "wrong password"', async () => {
    const repo = join(dir, 'own-key');
    await cp(pristine, repo, { recursive: true });
    const r0 = await openLocal(pristine);
    const at = join(repo, 'keys', r0.keyID);
    await chmod(at, 0o600);
    const j = JSON.parse(await readFile(at, 'utf8')) as { data: string };
    j.data = (j.data[0] === 'A' ? 'B' : 'A') + j.data.slice(1);
    await writeFile(at, JSON.stringify(j));
    const r = await cairn(['-r', repo, 'snapshots']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `WRONG_PASSWORD: wrong password or no key found (1 unreadable key file(s) skipped: key ${r0.keyID.slice(0, 8)}: does not open, and its content no longer matches its name: the file is damaged)\n`,
    );
    // restic 0.14 cannot tell: "Fatal: wrong password or no key found".
    expect((await restic(['--no-cache', '-r', repo, 'snapshots'])).stderr).toContain('wrong password or no key found');
  });
});
