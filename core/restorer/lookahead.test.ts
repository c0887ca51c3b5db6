import { describe, expect, it } from 'vitest';
import { CairnError } from '../errors';
import type { Node } from '../data/node';
import type { Repository } from '../repository/repository';
import { lookahead } from './lookahead';

/** A repository of `size`-byte blobs named "b<size>-<n>", each load resolved by hand or after a tick. */
function fakeRepo(opts: { missing?: Set<string>; failing?: Set<string>; manual?: boolean } = {}) {
  const stats = { inFlight: 0, maxInFlight: 0, held: 0, maxHeld: 0, started: [] as string[] };
  const pending: (() => void)[] = [];
  const size = (id: string) => Number(/^b(\d+)-/.exec(id)![1]);
  const repo = {
    lookupBlob: (_t: string, id: string) => (opts.missing?.has(id) ? undefined : { length: size(id) + 32, uncompressedLength: 0 }),
    loadBlob: (_t: string, id: string) => {
      stats.started.push(id);
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      return new Promise<Uint8Array>((resolve, reject) => {
        const done = () => {
          stats.inFlight--;
          if (opts.failing?.has(id)) reject(new CairnError('BAD_PACK', `cannot read ${id}`));
          else resolve(new TextEncoder().encode(id));
        };
        if (opts.manual) pending.push(done);
        else setTimeout(done, 1);
      });
    },
  } as unknown as Repository;
  return { repo, stats, release: () => pending.splice(0).forEach((f) => f()) };
}

const file = (name: string, content: string[]): { name: string; node: Node } => ({ name, node: { name, type: 'file', content } as unknown as Node });
const dir = (name: string): { name: string; node: Node } => ({ name, node: { name, type: 'dir' } as unknown as Node });
async function* from<T>(xs: T[]): AsyncGenerator<T> {
  for (const x of xs) yield x;
}
async function readAll(items: AsyncIterable<{ name: string; content: AsyncGenerator<Uint8Array> }>) {
  const out: [string, string[] | string][] = [];
  for await (const it of items) {
    const got: string[] = [];
    try {
      for await (const b of it.content) got.push(new TextDecoder().decode(b));
      out.push([it.name, got]);
    } catch (e) {
      out.push([it.name, `${(e as CairnError).code} after ${got.length}`]);
    }
  }
  return out;
}

describe('lookahead', () => {
  it('hands over every item in order with its content, and keeps loads within the budget', async () => {
    const { repo, stats } = fakeRepo();
    const items = [file('a', ['b100-1', 'b100-2']), dir('d'), file('e', []), ...Array.from({ length: 30 }, (_, i) => file(`f${i}`, [`b10-${i}`, `b10-${i}x`]))];
    const got = await readAll(lookahead(repo, from(items), { blobs: 4, bytes: 1000 }));
    expect(got).toEqual(items.map((x) => [x.name, (x.node.content ?? []) as string[]]));
    expect(stats.maxInFlight).toBe(4);
    expect(stats.started.length).toBe(62); // each blob once
  });

  it('loads the next files while the first one waits', async () => {
    const { repo, stats, release } = fakeRepo({ manual: true });
    const items = Array.from({ length: 10 }, (_, i) => file(`f${i}`, [`b10-${i}`]));
    const it = lookahead(repo, from(items), { blobs: 5 })[Symbol.asyncIterator]();
    const first = await it.next();
    const blob = first.value!.content.next();
    await new Promise((r) => setTimeout(r, 5));
    expect(stats.started).toEqual(['b10-0', 'b10-1', 'b10-2', 'b10-3', 'b10-4']);
    release();
    expect(new TextDecoder().decode((await blob).value)).toBe('b10-0');
  });

  it('holds no more plaintext ahead than the byte budget, but always loads a blob larger than it', async () => {
    const { repo, stats } = fakeRepo();
    let held = 0;
    const orig = repo.loadBlob.bind(repo);
    (repo as { loadBlob: Repository['loadBlob'] }).loadBlob = (t, id, s) => {
      held += Number(/^b(\d+)-/.exec(id)![1]);
      stats.maxHeld = Math.max(stats.maxHeld, held);
      return orig(t, id, s);
    };
    const items = [file('big', ['b5000-1', 'b5000-2']), ...Array.from({ length: 20 }, (_, i) => file(`f${i}`, [`b300-${i}`]))];
    for await (const x of lookahead(repo, from(items), { blobs: 8, bytes: 1000 })) {
      for await (const b of x.content) held -= Number(/^b(\d+)-/.exec(new TextDecoder().decode(b))![1]);
    }
    expect(stats.maxHeld).toBeLessThanOrEqual(5000 + 300); // the big one alone, at most a small one beside
    expect(stats.started.length).toBe(22);
  });

  it('a missing or unreadable blob fails its own file only; an abandoned file frees its loads', async () => {
    const { repo } = fakeRepo({ missing: new Set(['b10-m']), failing: new Set(['b10-x']) });
    const items = [file('ok1', ['b10-1']), file('missing', ['b10-2', 'b10-m', 'b10-3']), file('bad', ['b10-x', 'b10-4']), ...Array.from({ length: 12 }, (_, i) => file(`t${i}`, [`b10-t${i}`, `b10-u${i}`]))];
    const got = await readAll(lookahead(repo, from(items), { blobs: 3 }));
    expect(got.slice(0, 4)).toEqual([
      ['ok1', ['b10-1']],
      ['missing', 'BLOB_NOT_FOUND after 1'],
      ['bad', 'BAD_PACK after 0'],
      ['t0', ['b10-t0', 'b10-u0']],
    ]);
    expect(got).toHaveLength(15);
  });

  it('items whose content is never read do not stall the ones after them', async () => {
    const { repo } = fakeRepo();
    const items = Array.from({ length: 40 }, (_, i) => file(`f${i}`, [`b10-${i}a`, `b10-${i}b`, `b10-${i}c`]));
    const names: string[] = [];
    for await (const x of lookahead(repo, from(items), { blobs: 2 })) {
      names.push(x.name);
      if (names.length % 2 === 0) await x.content.next(); // read one blob of every other file, leave the rest
    }
    expect(names).toHaveLength(40);
  });
});
