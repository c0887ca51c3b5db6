// --log-file through the built CLI: one JSON line per operation — a backup with restic's
// summary numbers, one that could not read a target (exit 3, the path named), a failed command
// (exit 1 with its coded reason) — appended, never replacing earlier lines.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cairn, removeDir, tempDir } from '../test/helpers/cli';
import { publicLocation, resultOf, type OpLogLine } from './op-log';

describe('--log-file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('cairn-oplog');
  });
  afterAll(() => removeDir(dir));

  const lines = async (file: string) =>
    (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as OpLogLine);

  it('appends one restic-style line per operation', async () => {
    const repo = join(dir, 'repo');
    const src = join(dir, 'src');
    const log = join(dir, 'ops.jsonl');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'a.txt'), 'hello\n');
    await writeFile(join(src, 'sub', 'b.txt'), 'world\n');
    expect((await cairn(['-r', repo, '--log-file', log, 'init'])).code).toBe(0);
    expect((await cairn(['-r', repo, '--log-file', log, '-q', 'backup', src])).code).toBe(0);

    // A target that is not there: the backup ends with exit 3 and names it.
    const missing = join(dir, 'missing');
    expect((await cairn(['--log-file', log, '-r', repo, 'backup', src, missing])).code).toBe(3);

    expect((await cairn(['-r', join(dir, 'nothing-here'), '--log-file', log, 'snapshots'])).code).toBe(1);

    const [init, first, second, failed] = await lines(log);
    expect(init).toMatchObject({ message_type: 'operation', command: 'init', result: 'success', exit_code: 0, repository: repo, errors: [] });
    expect(first).toMatchObject({ command: 'backup', result: 'success', exit_code: 0, files_new: 2, total_files_processed: 2, total_bytes_processed: 12 });
    expect(first!.data_added).toBeGreaterThan(0);
    expect(first!.snapshot_id).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(first!.end) - Date.parse(first!.start)).toBeCloseTo(first!.duration * 1000, -1);
    expect(second).toMatchObject({ command: 'backup', result: 'warning', exit_code: 3, total_files_processed: 2 });
    expect(second!.errors).toEqual([{ message: expect.stringContaining(missing), item: missing }]);
    expect(failed).toMatchObject({ command: 'snapshots', result: 'failure', exit_code: 1, error: { code: 'NOT_A_REPOSITORY' } });
  });

  it('results follow restic’s exit codes; credentials never reach the log', () => {
    expect([0, 3, 130, 1, 2].map(resultOf)).toEqual(['success', 'warning', 'cancelled', 'failure', 'failure']);
    expect(publicLocation('s3:https://key:secret@host/bucket')).toBe('s3:https://host/bucket');
    expect(publicLocation('/srv/repo')).toBe('/srv/repo');
  });
});
