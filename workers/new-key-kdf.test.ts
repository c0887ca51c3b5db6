import { describe, expect, it } from 'vitest';
import { newKeyKdf } from './new-key-kdf';

describe("the app's new keys", () => {
  it("are no weaker than restic's typical key (N = 2^15, r = 8, p = 5–7 where restic calibrates)", () => {
    expect(newKeyKdf()).toEqual({ N: 32768, r: 8, p: 8 });
  });
});
