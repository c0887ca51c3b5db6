// Every wrapper a browser's bucket goes through passes the wrapped saver's `prepare` on: one that
// dropped it would still work, but each pack would hold its buffer until its upload settled.

import { describe, expect, it } from 'vitest';
import { MemoryBackend } from './mem';
import { withRetry } from './retry';
import { withConcurrencyLimit } from './limit';
import { withFaults } from '../../test/helpers/fault-backend';
import { journaledSaver } from '../repository/adopt';
import type { Backend, PreparedBody, SaveData } from './backend';

/** A memory backend whose prepared bodies are copies, and which saves only those it made. */
function preparingBackend(): Backend & { prepared: number } {
  const mem = new MemoryBackend();
  const made = new WeakSet<PreparedBody>();
  return Object.assign(mem, {
    prepared: 0,
    async prepare(data: Uint8Array): Promise<PreparedBody> {
      this.prepared++;
      const body = { length: data.length, prepared: data.slice() };
      made.add(body);
      return body;
    },
    save: async (h: Parameters<Backend['save']>[0], d: SaveData) => {
      if (d instanceof Uint8Array || !made.has(d)) throw new Error('not a body prepared here');
      return MemoryBackend.prototype.save.call(mem, h, d.prepared as Uint8Array);
    },
  });
}

describe('prepare through the wrappers', () => {
  it('retry, concurrency limit, faults and the pack journal pass it on; without one underneath there is none', async () => {
    const inner = preparingBackend();
    const wrapped = journaledSaver(withFaults(withConcurrencyLimit(withRetry(inner), 2)), { storing: async () => {} });
    const h = { type: 'data' as const, name: 'a'.repeat(64) };
    const buffer = new Uint8Array([1, 2, 3]);
    const body = await wrapped.prepare!(buffer);
    buffer.fill(9);
    await wrapped.save(h, body);
    expect(inner.prepared).toBe(1);
    expect(await inner.load(h)).toEqual(new Uint8Array([1, 2, 3]));
    expect(journaledSaver(withFaults(withConcurrencyLimit(withRetry(new MemoryBackend()), 2)), { storing: async () => {} }).prepare).toBeUndefined();
  });
});
