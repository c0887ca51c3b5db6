import { describe, expect, it } from 'vitest';
import { isCairnError } from '../errors';
import { ListingScheduler } from './listing-scheduler';

const tick = () => new Promise((r) => setTimeout(r, 0));

/** A listing that runs until released; records when it started. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { fn: async () => (log.push(name), await done, name), release };
}

describe('ListingScheduler', () => {
  it('lists at most `parallel` directories at once; the newest waiting turn goes next', async () => {
    const s = new ListingScheduler({ parallel: 2, queue: 100 });
    const log: string[] = [];
    const gates = ['a', 'b', 'c', 'd'].map((n) => gate(log, n));
    const turns = gates.map((g) => s.turn(g.fn));
    await tick();
    expect(log).toEqual(['a', 'b']);
    gates[0]!.release();
    await tick();
    expect(log).toEqual(['a', 'b', 'd']); // last in, first out: the walk stays depth-first
    gates[1]!.release();
    gates[3]!.release();
    await tick();
    gates[2]!.release();
    expect(await Promise.all(turns)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('pauses listing while `queue` listed files wait for a saver, and resumes as they start', async () => {
    const s = new ListingScheduler({ parallel: 4, queue: 3 });
    await s.turn(async () => s.filesListed(3));
    expect(s.filesWaiting).toBe(3);
    let listed = false;
    const next = s.turn(async () => void (listed = true));
    await tick();
    expect(listed).toBe(false);
    s.fileStarted();
    await next;
    expect(listed).toBe(true);
    expect(s.filesWaiting).toBe(2);
  });

  it('after a failure, waiting turns are let go and throw the first failure', async () => {
    const s = new ListingScheduler({ parallel: 1, queue: 100 });
    const log: string[] = [];
    const first = gate(log, 'first');
    const running = s.turn(first.fn);
    const waiting = s.turn(async () => 'never');
    s.fail(new Error('boom'));
    s.fail(new Error('later'));
    await expect(waiting).rejects.toThrow('boom');
    first.release();
    expect(await running).toBe('first'); // a listing under way finishes
    await expect(s.turn(async () => 'again')).rejects.toThrow('boom');
    expect(s.failure?.e).toBeInstanceOf(Error);
  });

  it('a turn asked for after a failure or a cancel throws at once, even with the queue full of files that will never start', async () => {
    const settled = (p: Promise<unknown>) =>
      Promise.race([
        p.then(
          () => 'listed',
          (e: Error) => e.message,
        ),
        tick().then(() => 'still waiting'),
      ]);
    const ac = new AbortController();
    for (const stop of ['fail', 'abort'] as const) {
      const s = new ListingScheduler({ parallel: 1, queue: 10 }, ac.signal);
      await s.turn(async () => s.filesListed(10)); // a folder's files: the walk stops before they start
      if (stop === 'fail') s.fail(new Error('boom'));
      else ac.abort();
      expect(await settled(s.turn(async () => 'never'))).toBe(stop === 'fail' ? 'boom' : 'operation cancelled');
    }
  });

  it('a cancel lets waiting turns go, and they throw ABORTED', async () => {
    const ac = new AbortController();
    const s = new ListingScheduler({ parallel: 1, queue: 0 }, ac.signal);
    const waiting = s.turn(async () => 'never').catch((e) => e);
    await tick();
    ac.abort();
    expect(isCairnError(await waiting, 'ABORTED')).toBe(true);
    s.dispose();
  });
});
