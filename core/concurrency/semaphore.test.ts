import { describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import { isCairnError } from '../errors';
import { Semaphore } from './semaphore';
import { expectCode } from '../../test/helpers/backend-conformance';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Semaphore', () => {
  it('rejects a capacity that is not a positive integer', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => new Semaphore(n)).toThrow(/positive integer/);
  });

  it('hands slots to waiters in FIFO order', async () => {
    const sem = new Semaphore(2);
    await sem.acquire();
    await sem.acquire();
    expect(sem.available).toBe(0);
    const order: number[] = [];
    const waits = [1, 2, 3].map((i) => sem.acquire().then(() => void order.push(i)));
    expect(sem.waiting).toBe(3);
    sem.release();
    await settle();
    expect(order).toEqual([1]);
    sem.release();
    sem.release();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
    expect(sem.available).toBe(0);
    sem.release();
    sem.release();
    expect(sem.available).toBe(2);
    expect(() => sem.release()).toThrow(/released more often/);
  });

  it('tryAcquire takes a free slot without waiting', () => {
    const sem = new Semaphore(1);
    expect(sem.tryAcquire()).toBe(true);
    expect(sem.tryAcquire()).toBe(false);
  });

  it('abandons a wait when aborted, without taking a slot', async () => {
    const sem = new Semaphore(1);
    await sem.acquire();
    const ac = new AbortController();
    const waiting = sem.acquire(ac.signal);
    const after = sem.acquire();
    ac.abort();
    await expectCode(waiting, 'ABORTED');
    expect(sem.waiting).toBe(1);
    sem.release();
    await after; // the slot went to the next waiter
    expect(sem.available).toBe(0);
    const pre = new AbortController();
    pre.abort();
    await expectCode(sem.acquire(pre.signal), 'ABORTED');
  });

  it('many waiters on one signal share one abort listener; abort rejects those still waiting', async () => {
    const sem = new Semaphore(1);
    const ctl = new AbortController();
    await sem.acquire(ctl.signal);
    const outcomes: string[] = [];
    const waits = Array.from({ length: 2000 }, (_, i) =>
      sem.acquire(ctl.signal).then(
        () => void outcomes.push(`got ${i}`),
        (e: unknown) => void outcomes.push(isCairnError(e, 'ABORTED') ? 'aborted' : 'other'),
      ),
    );
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    expect(sem.waiting).toBe(2000);
    sem.release(); // waiter 0 gets the slot
    sem.release(); // waiter 1
    await settle();
    ctl.abort();
    await Promise.all(waits);
    expect(outcomes.slice(0, 2)).toEqual(['got 0', 'got 1']);
    expect(outcomes.filter((o) => o === 'aborted')).toHaveLength(1998);
    expect(sem.waiting).toBe(0);
    // The slot waiter 1 holds is the only one taken: one release frees the semaphore fully.
    sem.release();
    expect(sem.available).toBe(1);
    // Once nobody waits, no listener is left behind on a signal.
    const other = new AbortController();
    await sem.acquire(other.signal);
    const p = sem.acquire(other.signal);
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(1);
    sem.release();
    await p;
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });

  it('run() releases its slot when the work throws', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sem.available).toBe(1);
    expect(await sem.run(async () => 42)).toBe(42);
  });
});
