// `cairn forget` against the real restic 0.14 on one generated repository (seeded: 6 groups,
// ~400 snapshots over 2½ years in Berlin, New York, India, UTC and a laptop moving between
// Tokyo and Los Angeles — DST nights, ISO weeks around New Year, month ends, leap days,
// snapshots in the future). Both run with TZ=Europe/Berlin, so restic reads Berlin-offset
// times in its local zone and moves keep-within windows across DST by Berlin's rules.
//
// restic 0.14 predates two rules of restic 0.18 that Cairn follows: the "oldest" rule (0.16:
// a count left over keeps a group's oldest snapshot, labelled "oldest …" since 0.18) and
// `unlimited` counts (0.14 has none; -1 kept nothing). So each count given as `unlimited` is
// run on restic as 1000000 (the same decision but for the oldest rule), and the group's oldest
// snapshot is compared with its "oldest …" matches taken out. core/forget/decide.test.ts
// holds both rules to restic's documentation.
//
// Every policy is decided in-process by the code behind `cairn forget` (flags → request →
// plan → JSON, with Berlin's rules as the local zone) and by restic; a share of them also
// runs through the built CLI, whose JSON must be the same as the in-process one.

import { spawn } from 'node:child_process';
import { cp, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../cli/args';
import { flags as FORGET_FLAGS, forgetRequest, planForget } from '../../cli/commands/forget';
import { forgetJSON } from '../../cli/forget-output';
import { GoTime, type ZoneRules } from '../../core/data/go-time';
import { encodeSnapshot } from '../../core/data/snapshot';
import { checkGroups, latestTime } from '../../core/forget';
import { isCairnError } from '../../core/errors';
import { Lock } from '../../core/repository/lock';
import { listSnapshots, loadSnapshot, type SnapshotEntry } from '../../core/repository/snapshots';
import { cairn, ok, removeDir, restic, tempDir, TEST_ENV } from '../helpers/cli';
import { openLocal } from '../helpers/engine';
import { writeHostileSnapshot } from '../helpers/hostile-repo';
import { berlin, writeSnapshotSet } from '../helpers/forget-snapshots';

const ENV = { TZ: 'Europe/Berlin' };
const SEED = 34;

// Each policy alone and combined, with grouping and filters. `unlimited` runs on restic as 1000000.
const POLICIES: string[][] = [
  ['--keep-last', '5'],
  ['--keep-hourly', '10'],
  ['--keep-daily', '7'],
  ['--keep-weekly', '6'],
  ['--keep-monthly', '8'],
  ['--keep-yearly', '3'],
  ['--keep-hourly', '200'],
  ['--keep-weekly', '60'],
  ['--keep-monthly', '40'],
  ['--keep-within', '10d'],
  ['--keep-within', '2m'],
  ['--keep-within', '1y1m15d12h'],
  ['--keep-within', '36h'],
  ['--keep-within-hourly', '2d'],
  ['--keep-within-daily', '1m'],
  ['--keep-within-weekly', '3m'],
  ['--keep-within-monthly', '1y'],
  ['--keep-within-yearly', '3y'],
  ['--keep-within-daily', '7d', '--keep-within-weekly', '1m', '--keep-within-monthly', '1y', '--keep-within-yearly', '5y'],
  ['--keep-tag', 'keep'],
  ['--keep-tag', 'daily,db', '--keep-tag', 'weekly'],
  ['--keep-tag', ''],
  ['--keep-tag', 'no-such-tag'],
  ['-d', '7', '-w', '4', '-m', '12', '-y', '2'],
  ['-l', '3', '-H', '24', '--keep-within', '3d', '--keep-tag', 'keep'],
  ['--keep-daily', 'unlimited'],
  ['--keep-weekly', 'unlimited', '--keep-monthly', '6'],
  ['--keep-last', 'unlimited', '--keep-yearly', '1'],
  ['--group-by', 'host', '-d', '5'],
  ['--group-by', '', '-w', '3', '--keep-within-daily', '5d'],
  ['--group-by', 'tags', '-m', '3'],
  ['--group-by', 'host,tags', '-l', '2', '--keep-within', '1m'],
  ['--group-by', 'paths,tags', '-y', '2', '-d', '2'],
  ['--host', 'alpha', '-d', '3'],
  ['--tag', 'daily', '-w', '2'],
  ['--path', '/srv', '-m', '2', '--keep-within-hourly', '1d'],
  ['--tag', 'daily,db', '--tag', 'weekly', '-l', '1'],
  ['--host', 'beta', '--host', 'nomad', '-H', '12', '-y', '5'],
];

interface JsonSnapshot {
  time: string;
  id?: string;
  [k: string]: unknown;
}
interface JsonGroup {
  tags: string[] | null;
  host: string;
  paths: string[] | null;
  keep: JsonSnapshot[] | null;
  remove: JsonSnapshot[] | null;
  reasons: { snapshot: JsonSnapshot; matches: string[]; counters?: unknown }[] | null;
}

const forResticOf = (flags: string[]) => flags.map((f) => (f === 'unlimited' ? '1000000' : f));
const groupKey = (g: JsonGroup) => JSON.stringify([g.host, g.paths, g.tags]);
const withoutIds = ({ id: _id, short_id: _short, ...rest }: JsonSnapshot) => rest;

interface Verdict {
  /** the oldest snapshot was kept only by restic 0.18's oldest rule, or got extra "oldest …" matches */
  oldestRule: boolean;
}

/**
 * One group of restic 0.14 (`theirs`) and of cairn (`mine`): the same snapshots (as JSON,
 * paths sorted), kept and removed alike with the same reasons — except that the group's
 * oldest snapshot may carry "oldest …" matches that 0.14 lacks.
 */
function compareGroup(theirs: JsonGroup, mine: JsonGroup): Verdict {
  expect(Object.keys(mine)).toEqual(Object.keys(theirs));
  const nulls = (g: JsonGroup) => [g.tags === null, g.paths === null, g.keep === null, g.remove === null, g.reasons === null];
  if (mine.keep?.length === (theirs.keep?.length ?? 0)) expect(nulls(mine)).toEqual(nulls(theirs));
  const all = [...(theirs.keep ?? []), ...(theirs.remove ?? [])];
  const byId = new Map(all.map((s) => [s.id!, s]));
  expect(new Map([...(mine.keep ?? []), ...(mine.remove ?? [])].map((s) => [s.id!, s]))).toEqual(byId);
  const oldest = all.reduce((a, b) => (GoTime.parse(b.time).compare(GoTime.parse(a.time)) < 0 ? b : a)).id!;
  const theirMatches = new Map<string, string[]>();
  (theirs.keep ?? []).forEach((s, i) => {
    const r = theirs.reasons![i]!;
    expect(r.snapshot.time).toBe(s.time); // 0.14's reasons pair with keep by position
    expect(r.snapshot).toEqual(withoutIds(s));
    theirMatches.set(s.id!, r.matches);
  });
  const myMatches = new Map<string, string[]>();
  for (const r of mine.reasons ?? []) {
    expect(r.snapshot).toEqual(byId.get(r.snapshot.id!));
    myMatches.set(r.snapshot.id!, r.matches);
  }
  expect(new Set((mine.keep ?? []).map((s) => s.id))).toEqual(new Set(myMatches.keys()));
  let oldestRule = false;
  for (const id of byId.keys()) {
    let m = myMatches.get(id);
    if (id === oldest && m) {
      const without = m.filter((x) => !x.startsWith('oldest '));
      oldestRule = without.length !== m.length;
      m = without.length ? without : undefined;
    }
    expect({ id, matches: m }).toEqual({ id, matches: theirMatches.get(id) });
  }
  return { oldestRule };
}

/**
 * A month count whose keep-within window ending at `latest` (a Berlin time) starts at other
 * instants by Berlin's rules and by latest's fixed offset — the DST change lies in between —
 * and a time in Berlin between the two starts.
 */
function dstProbe(latest: GoTime): { months: number; time: GoTime } {
  for (let m = 1; m <= 12; m++) {
    const fixed = latest.addDate(0, -m, 0).sec;
    const local = latest.addDate(0, -m, 0, berlin).sec;
    if (fixed !== local) {
      const mid = (fixed + local) / 2;
      return { months: m, time: GoTime.fromUnix(mid, 0, berlin(mid)) };
    }
  }
  throw new Error(`no DST change within a year before ${latest.format()}`);
}

/**
 * What `cairn forget --dry-run --json <flags>` decides, in-process: its JSON, or the error it
 * refuses with. `zone` is the local zone (null: none, every offset fixed — restic in TZ=UTC).
 */
function decideInProcess(entries: readonly SnapshotEntry[], flags: string[], zone: ZoneRules | null = berlin): { json?: JsonGroup[]; refusal?: string } {
  const req = forgetRequest(parseArgs(flags, FORGET_FLAGS).flags, {});
  const groups = planForget(req, entries, GoTime.fromDate(new Date()), zone ?? undefined);
  try {
    checkGroups(groups, req.policy);
  } catch (e) {
    if (isCairnError(e, 'FORGET_REFUSED')) return { refusal: e.message };
    throw e;
  }
  return { json: groups.length ? (JSON.parse(forgetJSON(groups)) as JsonGroup[]) : [] };
}

describe('cairn forget', () => {
  let dir: string, repo: string, entries: SnapshotEntry[];
  let probe: { id: string; months: number };

  beforeAll(async () => {
    dir = await tempDir('forget');
    repo = join(dir, 'repo');
    await ok(cairn(['-r', repo, 'init']));
    const r = await openLocal(repo);
    const first = await writeHostileSnapshot(r, [{ name: 'hello.txt', type: 'file', data: 'hello\n' }]);
    const { tree } = await loadSnapshot(r, first);
    await r.backend.remove({ type: 'snapshots', name: first });
    const set = await writeSnapshotSet(r, tree, { seed: SEED, nowMs: Date.now() });
    // A snapshot between the two instants where a keep-within window of alpha:/srv starts
    // with Berlin's rules and with a fixed offset.
    const srv = set.filter((e) => e.snapshot.hostname === 'alpha' && e.snapshot.paths[0] === '/srv');
    const { months, time } = dstProbe(latestTime(srv, GoTime.fromDate(new Date())));
    const sn = { ...srv[0]!.snapshot, time, tags: undefined };
    probe = { id: await r.saveJSON('snapshots', encodeSnapshot(sn)), months };
    entries = await listSnapshots(r);
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('decides exactly as restic for every policy, group by group', async () => {
    const tally = { policies: 0, groups: 0, oldestRule: 0, refused: 0, viaCli: 0 };
    const one = async (flags: string[], i: number) => {
      const theirs = await ok(restic(['-r', repo, '--no-lock', 'forget', '--dry-run', '--json', ...forResticOf(flags)], { env: ENV }));
      const theirGroups = JSON.parse(theirs.stdout) as JsonGroup[];
      const mine = decideInProcess(entries, flags);
      if (i % 4 === 0 || flags.includes('unlimited')) {
        const cli = await cairn(['-r', repo, '--no-lock', 'forget', '--dry-run', '--json', ...flags], { env: ENV });
        if (mine.refusal) expect(cli.stderr).toBe(`FORGET_REFUSED: ${mine.refusal}\n`);
        else expect(JSON.parse(cli.stdout)).toEqual(mine.json);
        tally.viaCli++;
      }
      if (mine.refusal) {
        // restic 0.18 (#4568) refuses a policy that keeps nothing of a group; 0.14 removes it all
        expect(mine.refusal).toMatch(/^refusing to delete last snapshot of snapshot group "/);
        expect(theirGroups.some((g) => g.keep === null)).toBe(true);
        tally.refused++;
        return;
      }
      const myGroups = mine.json!;
      expect(myGroups.map(groupKey).sort(), flags.join(' ')).toEqual(theirGroups.map(groupKey).sort());
      const mineByKey = new Map(myGroups.map((g) => [groupKey(g), g]));
      for (const g of theirGroups) {
        const verdict = compareGroup(g, mineByKey.get(groupKey(g))!);
        tally.groups++;
        if (verdict.oldestRule) tally.oldestRule++;
      }
      tally.policies++;
    };
    for (let i = 0; i < POLICIES.length; i += 3) await Promise.all(POLICIES.slice(i, i + 3).map((f, k) => one(f, i + k)));
    console.log(
      `forget vs restic 0.14: ${tally.policies} policies × their groups = ${tally.groups} groups agree ` +
        `(${entries.length} snapshots; ${tally.oldestRule} of the groups differ only by restic 0.16+'s oldest rule; ` +
        `${tally.refused} policy refused as restic 0.18 refuses; ${tally.viaCli} policies also through the CLI)`,
    );
    expect(tally.policies + tally.refused).toBe(POLICIES.length);
    expect(tally.refused).toBe(1); // --keep-tag no-such-tag
    expect(tally.oldestRule).toBeGreaterThan(0); // the oldest rule was exercised
    expect(tally.groups).toBeGreaterThan(150);
  }, 120_000);

  // Go's time.Parse reads a stored time whose offset the local zone has at that instant as a
  // local time, so AddDate then follows the zone's DST rules; any other offset stays fixed.
  it('moves keep-within windows across DST by the local zone’s rules, as restic does', async () => {
    const flags = ['--host', 'alpha', '--path', '/srv', '--keep-within', `${probe.months}m`];
    const kept = (groups: JsonGroup[] | undefined) => (groups ?? []).some((g) => (g.keep ?? []).some((s) => s.id === probe.id));
    const local = kept(decideInProcess(entries, flags).json);
    const fixed = kept(decideInProcess(entries, flags, null).json);
    expect(local).not.toBe(fixed); // the probe sits between the two window starts
    for (const [tz, want] of [
      ['Europe/Berlin', local],
      ['UTC', fixed],
    ] as const) {
      const theirs = JSON.parse(
        (await ok(restic(['-r', repo, '--no-lock', 'forget', '--dry-run', '--json', ...flags], { env: { TZ: tz } }))).stdout,
      ) as JsonGroup[];
      expect({ tz, kept: kept(theirs) }).toEqual({ tz, kept: want });
      const mine = JSON.parse(
        (await ok(cairn(['-r', repo, '--no-lock', 'forget', '--dry-run', '--json', ...flags], { env: { TZ: tz } }))).stdout,
      ) as JsonGroup[];
      expect({ tz, kept: kept(mine) }).toEqual({ tz, kept: want });
    }
  });

  // Single groups (restic orders groups at random), with rules that leave no count for the
  // oldest snapshot, so 0.14's text is 0.18's.
  it.each([
    [['--host', 'alpha', '--path', '/srv', '-d', '3', '-w', '2', '--keep-tag', 'keep']],
    [['--host', 'alpha', '--path', '/srv', '-d', '3', '-w', '2', '--keep-tag', 'keep', '--compact']],
    [['--host', 'alpha', '--path', '/home', '-l', '2', '-m', '2', '--keep-within', '1d']],
    [['-v', '--host', 'nomad', '-y', '1', '-H', '2', '--keep-tag', 'daily,db']],
    [['-v', '--group-by', '', '--host', 'delta', '--keep-within-daily', '2d', '-w', '1']],
  ])('prints what restic prints for %j', async (flags) => {
    const mine = decideInProcess(
      entries,
      flags.filter((f) => f !== '-v'),
    );
    expect(JSON.stringify(mine.json)).not.toContain('"oldest ');
    const args = ['-r', repo, '--no-lock', 'forget', '--dry-run', ...flags];
    const [theirs, ours] = await Promise.all([ok(restic(args, { env: ENV })), ok(cairn(args, { env: ENV }))]);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout).toMatch(/keep \d+ snapshots:\n/);
  });

  it('removes exactly what restic removes, and restic check is clean afterwards', async () => {
    const flags = ['-d', '5', '-w', '3', '-m', '3', '--keep-tag', 'keep'];
    expect(JSON.stringify(decideInProcess(entries, flags).json)).not.toContain('"oldest ');
    const [mine, theirs] = [join(dir, 'mine'), join(dir, 'theirs')];
    await Promise.all([cp(repo, mine, { recursive: true }), cp(repo, theirs, { recursive: true })]);
    const [, out] = await Promise.all([
      ok(restic(['-r', theirs, 'forget', ...flags], { env: ENV })),
      ok(cairn(['-r', mine, 'forget', ...flags], { env: ENV })),
    ]);
    expect(out.stdout).toMatch(/\n\[0:\d\d\] 100\.00% {2}(\d+) \/ \1 files deleted\n$/);
    const ids = async (r: string) => (await readdir(join(r, 'snapshots'))).sort();
    const left = await ids(mine);
    expect(left).toEqual(await ids(theirs));
    expect(left.length).toBeLessThan(entries.length);
    expect((await ok(restic(['-r', mine, 'check']))).stdout).toContain('no errors were found');

    // explicit IDs (a full one and a prefix) bypass the policy
    const [a, b] = [left[0]!, left[1]!];
    expect((await ok(cairn(['-r', mine, 'forget', '--dry-run', a, b.slice(0, 8)]))).stdout).toBe(
      `Would have removed the following snapshots:\n{${[a, b]
        .sort()
        .map((x) => x.slice(0, 8))
        .join(' ')}}\n\n`,
    );
    const filtered = await cairn(['-r', mine, 'forget', '--host', 'alpha', a]);
    expect([filtered.code, filtered.stderr]).toEqual([1, 'USAGE: explicit snapshot ids are given\n']);
    await ok(cairn(['-r', mine, 'forget', a, b.slice(0, 8)]));
    expect(await ids(mine)).toEqual(left.slice(2));
    expect((await ok(restic(['-r', mine, 'check']))).stdout).toContain('no errors were found');

    // --prune takes restic's prune flags: a dry run prints prune's plan and changes nothing; a
    // real run prunes under forget's lock, and restic finds nothing left to prune.
    const before = await readdir(join(mine, 'index'));
    const dry = await ok(cairn(['-r', mine, 'forget', '--dry-run', '--prune', '--max-unused', '10%', '--repack-uncompressed', '--host', 'gamma', '-l', '1']));
    expect(dry.stdout).toMatch(
      /Would have removed the following snapshots:[^]*\n\d+ snapshots would be removed, running prune dry run\n[^]*Would have made the following changes:/,
    );
    expect(await readdir(join(mine, 'index'))).toEqual(before);
    const bad = await cairn(['-r', mine, 'forget', '--prune', '--max-unused', '150%', '-l', '1']);
    expect([bad.code, bad.stderr]).toEqual([1, 'USAGE: percentage for --max-unused must be below 100%\n']);
    const pruned = await ok(cairn(['-r', mine, 'forget', '--prune', '--host', 'gamma', '-l', '1']));
    expect(pruned.stdout).toMatch(/\n\d+ snapshots have been removed, running prune\n/);
    expect((await ok(restic(['-r', mine, 'check', '--read-data']))).stdout).toContain('no errors were found');
    expect((await ok(restic(['-r', mine, 'prune', '--dry-run']))).stdout).toMatch(/this removes:\s+0 blobs/);
  });

  it('refuses an empty policy; --unsafe-allow-remove-all removes what a filter selects (restic 0.18)', async () => {
    const empty = await cairn(['-r', repo, 'forget']);
    expect([empty.code, empty.stderr]).toEqual([1, 'BAD_POLICY: no policy was specified, no snapshots will be removed\n']);
    const unfiltered = await cairn(['-r', repo, 'forget', '--unsafe-allow-remove-all']);
    expect(unfiltered.stderr).toBe('BAD_POLICY: --unsafe-allow-remove-all is not allowed unless a snapshot filter option is specified\n');
    const gamma = entries.filter((e) => e.snapshot.hostname === 'gamma').map((e) => e.id.slice(0, 8));
    const all = await ok(cairn(['-r', repo, 'forget', '--dry-run', '--unsafe-allow-remove-all', '--host', 'gamma']));
    expect(all.stdout).toMatch(new RegExp(`^Applying Policy: remove\nremove ${gamma.length} snapshots:\n`));
    expect(all.stdout).toContain(`Would have removed the following snapshots:\n{${gamma.sort().join(' ')}}\n\n`);
  });

  it('refuses while another process holds a lock, naming it', async () => {
    const copy = join(dir, 'locked');
    await cp(repo, copy, { recursive: true });
    const r = await openLocal(copy);
    const before = (await readdir(join(copy, 'snapshots'))).length;

    const lock = await Lock.acquire(r, { hostname: 'elsewhere', username: 'bob', pid: 4242 }, false);
    const refused = await cairn(['-r', copy, 'forget', '-l', '1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^LOCKED: repository is already locked: non-exclusive lock [0-9a-f]{8} held by PID 4242 on elsewhere by bob .* created at \d{4}-\d\d-\d\dT/,
    );
    expect((await readdir(join(copy, 'snapshots'))).length).toBe(before);
    await ok(cairn(['-r', copy, '--no-lock', 'forget', '--dry-run', '-l', '1'])); // --no-lock only with --dry-run
    expect((await cairn(['-r', copy, '--no-lock', 'forget', '-l', '1'])).stderr).toBe(
      'USAGE: --no-lock is only applicable in combination with --dry-run for forget command\n',
    );
    await lock.release();

    // a running `restic backup` (reading a stdin that stays open) holds its lock
    const backup = spawn('restic', ['-r', copy, 'backup', '--stdin', '--stdin-filename', 'slow.txt', '--host', 'zeta'], {
      env: { ...process.env, ...TEST_ENV },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const done = new Promise<number | null>((resolve) => backup.on('close', resolve));
    for (let i = 0; i < 200 && (await readdir(join(copy, 'locks'))).length === 0; i++) await new Promise((res) => setTimeout(res, 50));
    const blocked = await cairn(['-r', copy, 'forget', '-l', '1']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain(`held by PID ${backup.pid} on ${hostname()} by `);
    backup.stdin.end('data\n');
    expect(await done).toBe(0);
    expect((await readdir(join(copy, 'snapshots'))).length).toBe(before + 1);
    await ok(cairn(['-r', copy, 'forget', '-l', '1']));
    expect((await readdir(join(copy, 'snapshots'))).length).toBeLessThan(before);
  });
});
