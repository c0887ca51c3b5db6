// stdout's chunks: few writes, nothing dropped or reordered.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { chunkedWriter, processOut } from './output';

function writer(chunk: number) {
  const writes: string[] = [];
  const pending: (() => void)[] = [];
  const w = chunkedWriter(
    (s) => void writes.push(s),
    (f) => void pending.push(f),
    chunk,
  );
  const endTask = () => pending.splice(0).forEach((f) => f());
  return { w, writes, endTask };
}

describe('chunkedWriter', () => {
  it('joins many lines into few writes, in order, and writes the rest when the task ends', () => {
    const { w, writes, endTask } = writer(1000);
    const lines = Array.from({ length: 10_000 }, (_, i) => `line ${i}\n`);
    for (const l of lines) w.write(l);
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(lines.join('').length / 1000));
    endTask();
    expect(writes.join('')).toBe(lines.join(''));
    expect(writes.every((s) => s.length > 0)).toBe(true);
  });

  it('writes what it holds on flush, and a later write after it', () => {
    const { w, writes, endTask } = writer(1000);
    w.write('a\n');
    expect(writes).toEqual([]);
    w.flush();
    expect(writes).toEqual(['a\n']);
    w.write('b\n');
    endTask();
    endTask();
    expect(writes).toEqual(['a\n', 'b\n']);
  });
});

describe('processOut', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes the stdout it holds before anything goes to stderr, so a merged stream keeps their order', () => {
    const seen: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => Boolean(seen.push(`out:${String(s)}`)));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => Boolean(seen.push(`err:${String(s)}`)));
    processOut.stdout('first\n');
    processOut.stdout('second\n');
    processOut.stderr('warning\n');
    processOut.stdout('third\n');
    processOut.flush!();
    expect(seen).toEqual(['out:first\nsecond\n', 'err:warning\n', 'out:third\n']);
  });

  it('writes what it holds when the process exits', () => {
    expect(process.listeners('exit')).toContain(processOut.flush);
  });
});
