import { describe, expect, it } from 'vitest';
import { CairnError } from '../errors';
import { AHEAD_BATCH, AHEAD_BATCHES, EntriesAhead } from './entries-ahead';
import type { SourceEntry, SourceFS } from './source';

const dir: SourceEntry = { path: '/d', size: 0, ref: '/d', node: { name: 'd', type: 'dir' } as SourceEntry['node'] };
const entry = (name: string): SourceEntry => ({ path: `/d/${name}`, size: 0, ref: name, node: { name, type: 'file' } as SourceEntry['node'] });

/** A source whose entriesOf calls wait until `release()`; `calls` holds each call's names. */
function heldSource() {
  const calls: string[][] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const source = {
    entriesOf: async (_dir: SourceEntry, names: string[]) => {
      calls.push(names);
      await held;
      return names.map((n) => (n === 'bad' ? new CairnError('SOURCE_READ', 'gone', { detail: { path: `/d/${n}` } }) : entry(n)));
    },
  } as unknown as SourceFS;
  return { source, calls, release };
}

describe('EntriesAhead', () => {
  it('asks for a few batches ahead of the walk, never the whole folder at once, and hands back each entry in order', async () => {
    const names = Array.from({ length: (AHEAD_BATCHES + 3) * AHEAD_BATCH + 5 }, (_, i) => `n${i}`);
    const { source, calls, release } = heldSource();
    const ahead = new EntriesAhead(source, dir, names);
    const first = ahead.get(0);
    await Promise.resolve();
    expect(calls.length).toBe(AHEAD_BATCHES + 1);
    expect(calls[0]).toEqual(names.slice(0, AHEAD_BATCH));
    release();
    expect(((await first) as SourceEntry).node.name).toBe('n0');
    const got: string[] = [];
    for (let i = 0; i < names.length; i++) {
      got.push(((await ahead.get(i)) as SourceEntry).node.name);
      // The walk may forget a name once its entry is taken.
      (names as unknown[])[i] = undefined;
    }
    expect(got).toEqual(got.map((_, i) => `n${i}`));
    expect(calls.flat()).toEqual(got);
  });

  it('hands back an unreadable name as its error, in its place', async () => {
    const { source, release } = heldSource();
    release();
    const ahead = new EntriesAhead(source, dir, ['a', 'bad', 'c']);
    expect(((await ahead.get(0)) as SourceEntry).node.name).toBe('a');
    expect(await ahead.get(1)).toBeInstanceOf(CairnError);
    expect(((await ahead.get(2)) as SourceEntry).node.name).toBe('c');
  });

  it('a batch the walk never reaches that fails is no unhandled rejection', async () => {
    const failing = {
      entriesOf: async (_d: SourceEntry, names: string[]) => (names[0] === 'n0' ? names.map(entry) : Promise.reject(new Error('thread died'))),
    } as unknown as SourceFS;
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const ahead = new EntriesAhead(
        failing,
        dir,
        Array.from({ length: 2 * AHEAD_BATCH }, (_, i) => `n${i}`),
      );
      expect(((await ahead.get(0)) as SourceEntry).node.name).toBe('n0');
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      await expect(ahead.get(AHEAD_BATCH)).rejects.toThrow('thread died');
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
