import { describe, expect, it } from 'vitest';
import { collectSoon, garbageMade, garbageSinceNudge, GARBAGE_PER_NUDGE, smallGarbageMade } from './garbage';

describe('garbage meter', () => {
  it('counts buffers from 32 KiB on, small ones only when recorded together, and starts over after each nudge', () => {
    garbageMade(GARBAGE_PER_NUDGE); // start from a nudge
    expect(garbageSinceNudge()).toBe(0);
    garbageMade(4096); // left to the young generation
    expect(garbageSinceNudge()).toBe(0);
    garbageMade(64 << 10);
    smallGarbageMade(4096);
    expect(garbageSinceNudge()).toBe((64 << 10) + 4096);
    garbageMade(GARBAGE_PER_NUDGE); // past the threshold: a nudge, and the count starts over
    expect(garbageSinceNudge()).toBe(0);
  });

  it('nudges at once when asked to collect, whatever was counted', () => {
    garbageMade(64 << 10);
    expect(garbageSinceNudge()).toBe(64 << 10);
    collectSoon();
    expect(garbageSinceNudge()).toBe(0);
  });
});
