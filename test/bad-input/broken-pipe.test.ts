// `cairn ls latest | head -1`: the reader leaves early. The command stops as an interrupted one
// does — no stack trace, its lock released — where it used to crash on EPIPE.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAIRN_BIN, cairn, ok, removeDir, restic, run, tempDir } from '../helpers/cli';

describe('a reader that closes the pipe early', () => {
  let dir: string, repo: string;
  beforeAll(async () => {
    dir = await tempDir('broken-pipe');
    repo = join(dir, 'repo');
    const src = join(dir, 'src');
    for (let d = 0; d < 20; d++) {
      await mkdir(join(src, `dir-${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) await writeFile(join(src, `dir-${d}`, `a-long-file-name-to-fill-the-pipe-${f}.txt`), `${d}/${f}`);
    }
    await ok(cairn(['-r', repo, 'init']));
    await ok(cairn(['-r', repo, 'backup', '-q', src]));
  }, 60_000);
  afterAll(() => removeDir(dir));

  it('ends the command without a stack trace and leaves no lock', async () => {
    const r = await run('bash', ['-c', `node ${CAIRN_BIN} -r ${repo} ls latest | head -1`]);
    expect(r.code).toBe(0); // head's status
    expect(r.stdout.split('\n').length).toBe(2);
    expect(r.stderr).not.toMatch(/EPIPE|at .*\.mjs:\d+|Error:/);
    expect((await ok(restic(['-r', repo, 'list', 'locks', '--no-lock']))).stdout).toBe('');
  });
});
