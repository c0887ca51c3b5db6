import { describe, expect, it } from 'vitest';
import { parseArgs } from '../args';
import { GLOBAL_FLAGS } from '../global';
import { main } from '../main';
import type { Out } from '../output';
import { flags, forgetRequest } from './forget';
import { pruneCliOptions } from './prune';

const request = (argv: string[], env: NodeJS.ProcessEnv = {}) => forgetRequest(parseArgs(argv, { ...GLOBAL_FLAGS, ...flags }).flags, env);
const dur = (years: number, months: number, days: number, hours: number) => ({ years, months, days, hours });

describe('cairn forget flags (restic 0.18’s)', () => {
  it('reads the short policy flags, grouping and filters', () => {
    const r = request([
      '-l',
      '1',
      '-H',
      '2',
      '-d',
      '3',
      '-w',
      '4',
      '-m',
      'unlimited',
      '-y',
      '6',
      '-g',
      'tags',
      '--keep-within-daily',
      '7d',
      '--tag',
      'a,b',
      '--path',
      '/srv',
    ]);
    expect(r.policy).toMatchObject({ last: 1, hourly: 2, daily: 3, weekly: 4, monthly: -1, yearly: 6, withinDaily: dur(0, 0, 7, 0) });
    expect(r.groupBy).toEqual({ host: false, paths: false, tags: true });
    expect(r.filter).toEqual({ hosts: [], tags: ['a,b'], paths: ['/srv'] });
  });

  it('groups by host,paths by default and not at all with an empty --group-by', () => {
    expect(request(['-l', '1']).groupBy).toEqual({ host: true, paths: true, tags: false });
    expect(request(['-l', '1', '--group-by', '']).groupBy).toEqual({ host: false, paths: false, tags: false });
  });

  it('takes --host from $RESTIC_HOST unless given (also as the deprecated --hostname)', () => {
    expect(request(['-l', '1'], { RESTIC_HOST: 'env' }).filter.hosts).toEqual(['env']);
    expect(request(['-l', '1', '--host', 'a', '--host', 'b'], { RESTIC_HOST: 'env' }).filter.hosts).toEqual(['a', 'b']);
    expect(request(['-l', '1', '--hostname', 'old'], { RESTIC_HOST: 'env' }).filter.hosts).toEqual(['old']);
  });

  it('collects repeated --keep-tag values as OR-ed lists', () => {
    expect(request(['--keep-tag', 'a,b', '--keep-tag', '', '--keep-tag', 'c']).policy.tags).toEqual([['a', 'b'], [''], ['c']]);
  });

  it('accepts restic’s prune flags for --prune, with restic’s default --max-unused', () => {
    const p = parseArgs(['--prune', '--max-unused', '10%', '--max-repack-size', '1G', '--repack-uncompressed', '--repack-small'], {
      ...GLOBAL_FLAGS,
      ...flags,
    });
    expect(pruneCliOptions(p.flags, 'auto')).toEqual({
      dryRun: false,
      maxUnused: { kind: 'percent', percent: 10 },
      maxRepackBytes: 1 << 30,
      repackCacheableOnly: false,
      repackSmall: true,
      repackUncompressed: true,
    });
    expect(pruneCliOptions(parseArgs([], flags).flags, 'auto').maxUnused).toEqual({ kind: 'percent', percent: 5 });
  });

  it.each([
    [['forget', '--keep-last', '-1'], 'BAD_POLICY: invalid argument "-1" for --keep-last: negative values not allowed, use \'unlimited\' instead\n'],
    [['forget', '-d', 'x'], 'BAD_POLICY: invalid argument "x" for --keep-daily: strconv.ParseInt: parsing "x": invalid syntax\n'],
    [['forget', '--keep-within', '2w'], 'BAD_POLICY: invalid argument "2w" for --keep-within: invalid unit \'w\' found after number 2\n'],
    [['forget', '-l', '1', '--group-by', 'user'], 'BAD_POLICY: unknown grouping option: "user"\n'],
    [['--no-lock', 'forget', '-l', '1'], 'USAGE: --no-lock is only applicable in combination with --dry-run for forget command\n'],
  ])('refuses %j before opening the repository', async (argv, err) => {
    const o: Out & { out: string; err: string } = { out: '', err: '', isTTY: false, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
    expect(await main(['-r', '/nonexistent-repo', ...argv], { RESTIC_PASSWORD: 'x' }, o)).toBe(1);
    expect(o.err).toBe(err);
  });
});
