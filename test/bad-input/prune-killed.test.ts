// cairn prune killed outright (SIGKILL) at points spread over its whole run, each time at a
// repository write: the start of a file (open), its commit (rename) or a delete (unlink).
// The CLI runs unchanged; a module preloaded with `node --import` counts those calls and kills
// the process just before the N-th, so every point is exact and repeatable. After each kill,
// `restic unlock` + `restic check` must pass, and the next `cairn prune` must finish and leave
// a repository restic checks clean (--read-data) and finds nothing left to prune in.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAIRN_BIN, cairn, ok, removeDir, restic, run, tempDir } from '../helpers/cli';
import { del, makeHistory, noise, NOTHING_LEFT, put, resticLeftToDo, text, type History, type Step } from '../helpers/prune-history';
import { prng } from '../fixtures/chunker/generate';

/** Twelve backups, each adding a file, changing one and deleting what the third-last added; the last three kept. */
const steps: Step[] = Array.from({ length: 12 }, (_, i) => async (src: string) => {
  await put(join(src, `new${i}.bin`), noise(i + 1, 40_000 + i * 1000));
  await put(join(src, `t${i % 4}.txt`), text(100 + i, 3000));
  if (i >= 3) await del(join(src, `new${i - 3}.bin`));
});

/** The preloaded module: counts open(…, 'wx'), rename and unlink under `repo`; kills before the `killAt`-th (0: never) and logs them at exit. */
function hook(repo: string, killAt: number, log: string): string {
  const code = `
    import fs from 'node:fs';
    import { syncBuiltinESMExports } from 'node:module';
    const repo = ${JSON.stringify(repo)}, killAt = ${killAt}, ops = [];
    const p = fs.promises;
    const count = (what, path) => {
      if (!String(path).startsWith(repo)) return;
      ops.push(what + ' ' + String(path).slice(repo.length + 1));
      if (ops.length === killAt) process.kill(process.pid, 'SIGKILL');
    };
    const open = p.open, rename = p.rename, unlink = p.unlink;
    p.open = (path, flags, ...rest) => { if (flags === 'wx') count('open', path); return open(path, flags, ...rest); };
    p.rename = (from, to) => { count('rename', to); return rename(from, to); };
    p.unlink = (path) => { count('unlink', path); return unlink(path); };
    syncBuiltinESMExports();
    process.on('exit', () => fs.writeFileSync(${JSON.stringify(log)}, JSON.stringify(ops)));
  `;
  return `data:text/javascript,${encodeURIComponent(code)}`;
}

const prune = (repo: string, killAt: number, log: string) => run(process.execPath, ['--import', hook(repo, killAt, log), CAIRN_BIN, '-r', repo, 'prune']);

/** `n` points in 1…total, one seeded pick in each of n equal stretches. */
function killPoints(total: number, n: number, seed: number): number[] {
  const next = prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const lo = Math.floor((i * total) / n) + 1,
      hi = Math.floor(((i + 1) * total) / n);
    return lo + (next() % Math.max(1, hi - lo + 1));
  });
}

describe('cairn prune killed with SIGKILL', () => {
  let dir: string, template: History;
  beforeAll(async () => {
    dir = await tempDir('prune-killed');
    template = await makeHistory(join(dir, 'template'), steps, { keepLast: 3 });
  }, 120_000);
  afterAll(() => removeDir(dir));

  it('at 12 points over its whole run: restic check passes, and the next prune finishes the job', async () => {
    // One full run counts the writes.
    const full = join(dir, 'full');
    await cp(template.repo, full, { recursive: true });
    const fullLog = join(dir, 'full.json');
    await ok(prune(full, 0, fullLog));
    const ops = JSON.parse(await readFile(fullLog, 'utf8')) as string[];
    expect(ops.length).toBeGreaterThan(30);

    const rows: string[] = [];
    for (const at of killPoints(ops.length, 12, 34)) {
      const repo = join(dir, `kill-${at}`);
      await mkdir(repo);
      await cp(template.repo, repo, { recursive: true });
      const killed = await prune(repo, at, join(dir, `kill-${at}.json`));
      expect(killed.code, `point ${at}`).toBe(137);
      await ok(restic(['-r', repo, 'unlock']));
      const check = await restic(['-r', repo, 'check']);
      expect(check.code, `point ${at}: ${check.stdout}${check.stderr}`).toBe(0);
      const hints = /(\d+) additional files were found/.exec(check.stdout)?.[1] ?? '0';
      const again = await cairn(['-r', repo, 'prune']);
      expect(again.code, `point ${at}: ${again.stderr}`).toBe(0);
      const final = await restic(['-r', repo, 'check', '--read-data']);
      expect(final.code, `point ${at}: ${final.stdout}${final.stderr}`).toBe(0);
      expect(final.stdout).not.toContain('additional files');
      expect(await resticLeftToDo(repo), `point ${at}`).toEqual(NOTHING_LEFT);
      const removed = /removing (\d+) old packs/.exec(again.stdout)?.[1] ?? '0';
      rows.push(
        `${String(at).padStart(3)}/${ops.length}  before ${ops[at - 1]!.padEnd(90)}  killed; check ok (${hints} unreferenced packs); next prune ok (${removed} old packs removed); final check --read-data ok, nothing left`,
      );
      await removeDir(repo);
    }
    const runs: [string, number][] = []; // "rename data" × 2 …
    for (const o of ops) {
      const kind = o.slice(0, o.indexOf('/'));
      const last = runs[runs.length - 1];
      if (last?.[0] === kind) last[1]++;
      else runs.push([kind, 1]);
    }
    console.log(`prune's ${ops.length} writes: ${runs.map(([k, n]) => `${n}× ${k}`).join(', ')}\nkilled at ${rows.length} points:\n${rows.join('\n')}`);
  });
});
