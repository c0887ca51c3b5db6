import { describe, expect, it } from 'vitest';
import { main } from './main';
import type { Out } from './output';
import { formatPercent, pruneProgress, pruneStatsJSON, pruneStatsText } from './prune-output';
import { emptyStats, finishStats } from '../core/prune/stats';

function capture(isTTY = false): Out & { out: string; err: string } {
  const o = { out: '', err: '', isTTY, stdout: (s: string) => void (o.out += s), stderr: (s: string) => void (o.err += s) };
  return o;
}

function stats() {
  const s = emptyStats();
  Object.assign(s.blobs, { used: 13, unused: 13, repack: 12, repackRemove: 5, remove: 8 });
  Object.assign(s.bytes, { used: 1201725, unused: 1503639, unreferenced: 0, repack: 1801443, repackRemove: 1500000, remove: 3639 });
  Object.assign(s.packs, { used: 4, partlyUsed: 4, unused: 4, keep: 4, repack: 4, remove: 4 });
  finishStats(s);
  return s;
}

describe('prune output (restic printPruneStats)', () => {
  it('formats percentages as Go %3.2f%%, capped at 100, empty over zero', () => {
    expect(formatPercent(1, 3)).toBe('33.33%');
    expect(formatPercent(0, 5)).toBe('0.00%');
    expect(formatPercent(7, 5)).toBe('100.00%');
    expect(formatPercent(1, 0)).toBe('');
  });

  it('prints the lines restic prints, the -v ones only when verbose', () => {
    const text = pruneStatsText(stats(), false);
    expect(text).toBe(
      [
        '',
        'to repack:            12 blobs / 1.718 MiB',
        'this removes:          5 blobs / 1.431 MiB',
        'to delete:             8 blobs / 3.554 KiB',
        'total prune:          13 blobs / 1.434 MiB',
        'remaining:            13 blobs / 1.146 MiB',
        'unused size after prune: 0 B (0.00% of remaining size)',
        '',
        '',
      ].join('\n'),
    );
    const verbose = pruneStatsText(stats(), true);
    expect(verbose).toContain('\nused:                 13 blobs / 1.146 MiB\n');
    expect(verbose).toContain('unused size: 55.58% of total size\n');
    expect(verbose).toContain('totally used packs:          4\npartly used packs:           4\nunused packs:                4\n\nto keep:');
    expect(verbose).not.toContain('duplicates:');
  });

  it('--json: restic 0.19’s summary fields', () => {
    const j = pruneStatsJSON(stats());
    expect(Object.keys(j)).toEqual(['message_type', 'blobs', 'bytes', 'packfiles']);
    expect(j.blobs).toMatchObject({ used: 13, repack_remove: 5, remove_total: 13, remaining: 13 });
    expect(Object.keys(j.packfiles as object)).toEqual(['used', 'unused', 'partly_used', 'unreferenced', 'total', 'keep', 'repack', 'remove', 'remove_total']);
  });

  it('says each step once, and counts on a terminal only', () => {
    const o = capture(true);
    const lines: string[] = [];
    const p = pruneProgress(o, (l) => lines.push(l));
    const base = { packsRead: 0, packsRepacked: 0, packsWritten: 0, bytesWritten: 0, packsDeleted: 0, bytesDeleted: 0 };
    p({ ...base, phase: 'repack', done: 0, total: 4 });
    p({ ...base, phase: 'repack', done: 1, total: 4 });
    p({ ...base, phase: 'delete-packs', done: 0, total: 7 });
    expect(lines).toEqual(['repacking packs', 'removing 7 old packs']);
    expect(o.err).toContain('25.00%  1 / 4 packs repacked');
    const quiet = capture(false);
    pruneProgress(quiet, () => {})({ ...base, phase: 'repack', done: 1, total: 4 });
    expect(quiet.err).toBe('');
  });

  it('refuses bad flags before touching the repository', async () => {
    const run = async (...argv: string[]) => {
      const o = capture();
      expect(await main(['-r', '/nonexistent-repo', 'prune', ...argv], { RESTIC_PASSWORD: 'x' }, o)).toBe(1);
      return o.err;
    };
    expect(await run('--max-unused', '100%')).toBe('USAGE: percentage for --max-unused must be below 100%\n');
    expect(await run('--max-unused', 'lots')).toMatch(/^USAGE: invalid number of bytes "lots" for --max-unused/);
    expect(await run('--repack-smaller-than', '0')).toBe('USAGE: --repack-smaller-than must be larger than zero\n');
    expect(await run('--repack-uncompressed', '--compression', 'off')).toBe('USAGE: disabled compression and `--repack-uncompressed` are mutually exclusive\n');
    expect(await run('--no-lock')).toBe('USAGE: --no-lock is only applicable in combination with --dry-run for prune command\n');
    expect(await run('--dry-run')).toMatch(/^NOT_A_REPOSITORY: /);
  });
});
