// The engine's operation slot (Node): one operation at a time, a second refused with BUSY
// naming the first, progress and cancel seen through the slot, and the slot free again after
// success, failure or cancel; the refusal crosses the worker boundary as an EngineError.

import { describe, expect, it } from 'vitest';
import type { ProgressSnapshot } from '../../core/progress';
import { guardedMethods } from '../errors';
import { OperationSlot } from './operation-slot';

/** An operation that runs until `finish` (or its signal) ends it. */
function held() {
  let finish!: (v: string) => void;
  const result = new Promise<string>((r) => (finish = r));
  let signal!: AbortSignal;
  let report!: ((p: ProgressSnapshot) => void) | undefined;
  const fn = (run: { signal: AbortSignal; onProgress?: (p: ProgressSnapshot) => void }) => {
    signal = run.signal;
    report = run.onProgress;
    return new Promise<string>((resolve, reject) => {
      run.signal.addEventListener('abort', () => reject(run.signal.reason));
      void result.then(resolve);
    });
  };
  return { fn, finish, signal: () => signal, report: (p: ProgressSnapshot) => report?.(p) };
}

const PROGRESS = { filesDone: 3 } as unknown as ProgressSnapshot;

describe('OperationSlot', () => {
  it('holds one operation: kind, owner and start time while it runs, free after', async () => {
    const slot = new OperationSlot(() => 1000);
    expect(slot.current).toBeUndefined();
    const op = held();
    const running = slot.run('backup', { by: 'plan', plan: { id: 'p1', name: 'Photos' } }, undefined, op.fn);
    expect(slot.current).toEqual({ kind: 'backup', owner: { by: 'plan', plan: { id: 'p1', name: 'Photos' } }, since: 1000, cancelling: false });
    op.finish('done');
    await expect(running).resolves.toBe('done');
    expect(slot.current).toBeUndefined();
  });

  it.each([
    ['backup', 'check', 'a backup is still running'],
    ['check', 'backup', 'a check is still running'],
    ['restore', 'forget', 'a restore is still running'],
    ['forget', 'restore', 'removing snapshots is still running'],
    ['save', 'check', 'saving a file is still running'],
  ] as const)('refuses %s then %s with BUSY naming the first, and leaves the first running', async (first, second, message) => {
    const slot = new OperationSlot(() => 42);
    const op = held();
    const running = slot.run(first, undefined, undefined, op.fn);
    let ran = false;
    const refused = slot.run(second, undefined, undefined, async () => void (ran = true));
    await expect(refused).rejects.toMatchObject({ code: 'BUSY', message, detail: { kind: first, by: 'user', since: 42 } });
    expect(ran).toBe(false);
    expect(slot.current?.kind).toBe(first);
    op.finish('ok');
    await running;
  });

  it('keeps the last progress report and hands it on to the listener', async () => {
    const slot = new OperationSlot();
    const op = held();
    const seen: ProgressSnapshot[] = [];
    const running = slot.run('restore', undefined, (p) => seen.push(p), op.fn);
    op.report(PROGRESS);
    expect(slot.current?.progress).toBe(PROGRESS);
    expect(seen).toEqual([PROGRESS]);
    op.finish('ok');
    await running;
  });

  it('cancel aborts the running operation with ABORTED and marks it cancelling; nothing to cancel when free', async () => {
    const slot = new OperationSlot();
    expect(slot.cancel()).toBe(false);
    const op = held();
    const running = slot.run('check', undefined, undefined, op.fn);
    expect(slot.cancel()).toBe(true);
    expect(op.signal().aborted).toBe(true);
    expect(slot.current?.cancelling).toBe(true);
    await expect(running).rejects.toMatchObject({ code: 'ABORTED' });
    expect(slot.current).toBeUndefined();
  });

  it('is free again after a failure, and idle() resolves when the operation ends', async () => {
    const slot = new OperationSlot();
    await expect(slot.idle()).resolves.toBeUndefined();
    let fail!: (e: Error) => void;
    const running = slot.run('forget', undefined, undefined, () => new Promise((_, reject) => (fail = reject)));
    let idle = false;
    const waited = slot.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    fail(new Error('disk full'));
    await expect(running).rejects.toThrow('disk full');
    await waited;
    expect(slot.current).toBeUndefined();
    await expect(slot.run('backup', undefined, undefined, async () => 'next')).resolves.toBe('next');
  });

  it('the slot’s view is a copy: the page cannot change what runs', async () => {
    const slot = new OperationSlot();
    const op = held();
    const running = slot.run('backup', undefined, undefined, op.fn);
    const view = slot.current!;
    view.cancelling = true;
    expect(slot.current?.cancelling).toBe(false);
    op.finish('ok');
    await running;
  });
});

describe('guardedMethods', () => {
  it('turns a method’s BUSY into a plain EngineError (code, message, detail) and keeps `this`', async () => {
    class Host {
      readonly slot = new OperationSlot(() => 7);
      check(fn: () => Promise<string>) {
        return this.slot.run('check', undefined, undefined, fn);
      }
    }
    const host = guardedMethods(new Host());
    const op = held();
    const running = host.check(() => op.fn({ signal: new AbortController().signal }));
    const e: unknown = await host.check(async () => 'second').catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(Error);
    expect(e).toEqual({ code: 'BUSY', message: 'a check is still running', retryable: false, detail: { kind: 'check', by: 'user', since: 7 } });
    op.finish('first');
    await expect(running).resolves.toBe('first');
  });
});
