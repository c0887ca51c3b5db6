import { describe, expect, it } from 'vitest';
import { filesMade, FILE_WEIGHT } from './file-garbage';
import { GARBAGE_PER_NUDGE, garbageMade, garbageSinceNudge } from '../../core/util/garbage';

describe('garbage hint', () => {
  it('counts the bytes made and starts over after each nudge', () => {
    garbageMade(GARBAGE_PER_NUDGE - garbageSinceNudge() - 1);
    expect(garbageSinceNudge()).toBe(GARBAGE_PER_NUDGE - 1);
    garbageMade(1);
    expect(garbageSinceNudge()).toBe(0);
    garbageMade(5);
    expect(garbageSinceNudge()).toBe(5);
  });

  it('counts each File made as FILE_WEIGHT bytes (a nudge every thousand or so)', () => {
    garbageMade(GARBAGE_PER_NUDGE - garbageSinceNudge()); // a nudge: starts at 0
    filesMade(3);
    expect(garbageSinceNudge()).toBe(3 * FILE_WEIGHT);
    expect(GARBAGE_PER_NUDGE / FILE_WEIGHT).toBeGreaterThanOrEqual(500);
    expect(GARBAGE_PER_NUDGE / FILE_WEIGHT).toBeLessThanOrEqual(2000);
  });
});
