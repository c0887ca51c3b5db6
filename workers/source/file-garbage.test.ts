import { describe, expect, it } from 'vitest';
import { filesMade, FILE_WEIGHT } from './file-garbage';
import { GARBAGE_PER_NUDGE, garbageMade, garbageSinceNudge, unseenGarbageMade } from '../../core/memory/garbage';

describe('garbage hint', () => {
  it('counts the bytes made (buffers of 32 KiB or more) and starts over after each nudge', () => {
    unseenGarbageMade(GARBAGE_PER_NUDGE - garbageSinceNudge() - 1);
    expect(garbageSinceNudge()).toBe(GARBAGE_PER_NUDGE - 1);
    unseenGarbageMade(1);
    expect(garbageSinceNudge()).toBe(0);
    garbageMade(1 << 20);
    expect(garbageSinceNudge()).toBe(1 << 20);
    garbageMade(2048); // a small buffer: the young generation's collections take those
    expect(garbageSinceNudge()).toBe(1 << 20);
  });

  it('counts each File made as FILE_WEIGHT bytes (a nudge every two thousand or so)', () => {
    unseenGarbageMade(GARBAGE_PER_NUDGE - garbageSinceNudge()); // a nudge: starts at 0
    filesMade(3);
    expect(garbageSinceNudge()).toBe(3 * FILE_WEIGHT);
    expect(GARBAGE_PER_NUDGE / FILE_WEIGHT).toBeGreaterThanOrEqual(1000);
    expect(GARBAGE_PER_NUDGE / FILE_WEIGHT).toBeLessThanOrEqual(4000);
  });
});
