import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPatternFiles } from './text-files';

describe('readPatternFiles (restic readPatternsFromFiles)', () => {
  it('trims lines, skips blanks and comments, drops a byte order mark and CRs, expands $VAR (unset: empty) and $$', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-patterns-'));
    const a = join(dir, 'a'),
      b = join(dir, 'b');
    writeFileSync(a, '\ufeff  *.tmp  \r\n# a comment\r\n\r\n$HOME/cache\n');
    writeFileSync(b, '${UNSET_CAIRN_VAR}x\nprice$$\n');
    expect(readPatternFiles([a, b], { HOME: '/home/u' })).toEqual(['*.tmp', '/home/u/cache', 'x', 'price$']);
  });

  it('names a file it cannot read, as restic does', () => {
    expect(() => readPatternFiles(['/does/not/exist'], {})).toThrow(/failed to read patterns from file "\/does\/not\/exist"/);
  });
});
