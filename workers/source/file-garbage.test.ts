import { describe, expect, it } from 'vitest';
import { filesMade, filesSinceNudge } from './file-garbage';

describe('file garbage hint', () => {
  it('counts the Files made and starts over after each nudge (every 2000)', () => {
    const start = filesSinceNudge();
    filesMade(1999 - start);
    expect(filesSinceNudge()).toBe(1999);
    filesMade();
    expect(filesSinceNudge()).toBe(0);
    filesMade(5);
    expect(filesSinceNudge()).toBe(5);
  });
});
