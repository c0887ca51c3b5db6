import { describe, expect, it } from 'vitest';
import { isCairnError } from '../../core/errors';
import type { Handle } from '../../core/backend/backend';
import { expectCode, listAll } from './backend-conformance';
import { seededBytes, seededRandom, withFaults } from './fault-backend';
import { MemoryBackend } from '../../core/backend/mem';

const h = (name: string): Handle => ({ type: 'index', name });

/** Which of n stat calls hit an injected fault (the object is missing, so the rest are NOT_FOUND). */
async function outcomes(seed: number, n: number): Promise<boolean[]> {
  const be = withFaults(new MemoryBackend(), { seed, failRate: 0.3, ops: ['stat'] });
  const out: boolean[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      await be.stat(h('aa')).then(
        () => false,
        (e: unknown) => isCairnError(e, 'NETWORK'),
      ),
    );
  return out;
}

describe('withFaults', () => {
  it('fails a seeded, reproducible share of calls with retryable NETWORK errors', async () => {
    const inner = new MemoryBackend();
    await inner.save(h('aa'), new Uint8Array([1]));
    const be = withFaults(inner, { seed: 42, failRate: 0.3 });
    let failures = 0;
    for (let i = 0; i < 200; i++) {
      await be.load(h('aa')).catch((e: unknown) => {
        expect(isCairnError(e, 'NETWORK') && e.retryable).toBe(true);
        failures++;
      });
    }
    expect(failures).toBe(be.faults.failures);
    expect(be.faults.calls).toBe(200);
    expect(failures).toBeGreaterThan(40);
    expect(failures).toBeLessThan(80);
    // The pattern depends on the seed alone.
    expect(await outcomes(7, 50)).toEqual(await outcomes(7, 50));
    expect(await outcomes(7, 50)).not.toEqual(await outcomes(8, 50));
  });

  it('fails the first N calls when asked, then passes through', async () => {
    const be = withFaults(new MemoryBackend(), { failFirst: 2 });
    await expectCode(be.save(h('aa'), new Uint8Array(1)), 'NETWORK');
    await expectCode(be.save(h('aa'), new Uint8Array(1)), 'NETWORK');
    await be.save(h('aa'), new Uint8Array(1));
    expect(be.faults).toEqual({ calls: 3, failures: 2 });
  });

  it('leaves unlisted operations alone', async () => {
    const be = withFaults(new MemoryBackend(), { failRate: 1, ops: ['load'] });
    await be.save(h('aa'), new Uint8Array(3));
    expect((await be.stat(h('aa'))).size).toBe(3);
    await expectCode(be.load(h('aa')), 'NETWORK');
  });

  it('breaks saves off after N bytes: larger ones store nothing, smaller ones are stored but still fail', async () => {
    const inner = new MemoryBackend();
    const be = withFaults(inner, { failRate: 1, failAfterBytes: 10, ops: ['save'] });
    await expectCode(be.save(h('aa'), new Uint8Array(11)), 'NETWORK');
    await expectCode(inner.stat(h('aa')), 'NOT_FOUND');
    await expectCode(be.save(h('bb'), new Uint8Array(10)), 'NETWORK');
    expect((await inner.stat(h('bb'))).size).toBe(10);
  });

  it('breaks loads off after N bytes; shorter loads get through', async () => {
    const inner = new MemoryBackend();
    await inner.save(h('aa'), new Uint8Array(100));
    const be = withFaults(inner, { failRate: 1, failAfterBytes: 50, ops: ['load'] });
    await expectCode(be.load(h('aa')), 'NETWORK');
    expect((await be.load(h('aa'), { offset: 10, length: 50 })).length).toBe(50);
    expect(be.faults.failures).toBe(1);
  });

  it('breaks a listing off after some entries', async () => {
    const inner = new MemoryBackend();
    for (const name of ['aa', 'bb', 'cc']) await inner.save(h(name), new Uint8Array(1));
    const be = withFaults(inner, { failRate: 1, failAfterItems: 2, ops: ['list'] });
    const seen: string[] = [];
    const listing = (async () => {
      for await (const fi of be.list('index')) seen.push(fi.name);
    })();
    await expectCode(listing, 'NETWORK');
    expect(seen).toHaveLength(2);
    expect(await listAll(inner, 'index')).toHaveLength(3);
  });

  it('delays calls through the injected sleep', async () => {
    const slept: number[] = [];
    const be = withFaults(new MemoryBackend(), { delayMs: 25, sleep: async (ms) => void slept.push(ms) });
    await be.save(h('aa'), new Uint8Array(1));
    await be.stat(h('aa'));
    expect(slept).toEqual([25, 25]);
  });

  it('uses a custom error', async () => {
    const be = withFaults(new MemoryBackend(), { failRate: 1, makeError: (op) => new Error(`boom in ${op}`) });
    await expect(be.remove(h('aa'))).rejects.toThrow('boom in remove');
  });
});

describe('seeded data', () => {
  it('is deterministic and spread out', () => {
    expect(seededBytes(1, 1000)).toEqual(seededBytes(1, 1000));
    expect(seededBytes(1, 1000)).not.toEqual(seededBytes(2, 1000));
    const r = seededRandom(9);
    const xs = Array.from({ length: 1000 }, r);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(new Set(seededBytes(4, 4096)).size).toBe(256);
  });
});
