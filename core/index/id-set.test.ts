import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { IdSet } from './id-set';

const id = (i: number) => createHash('sha256').update(String(i)).digest('hex');

describe('IdSet', () => {
  it('adds, finds and deletes IDs through growth and reuse', () => {
    const s = new IdSet();
    for (let i = 0; i < 5000; i++) expect(s.add(id(i))).toBe(true);
    expect(s.add(id(7))).toBe(false);
    expect(s.size).toBe(5000);
    for (let i = 0; i < 5000; i += 2) expect(s.delete(id(i))).toBe(true);
    expect(s.delete(id(0))).toBe(false);
    for (let i = 0; i < 5000; i++) expect(s.has(id(i))).toBe(i % 2 === 1);
    for (let i = 5000; i < 9000; i++) s.add(id(i)); // reuses the deleted entries
    expect(s.size).toBe(6500);
    for (let i = 0; i < 9000; i++) expect(s.has(id(i))).toBe(i >= 5000 || i % 2 === 1);
  });

  it('deletes an ID given as bytes inside a larger buffer (deleteAt)', () => {
    const s = new IdSet();
    for (let i = 0; i < 100; i++) s.add(id(i));
    const buf = new Uint8Array(32 * 3 + 5);
    buf.set(Buffer.from(id(42), 'hex'), 37);
    expect(s.deleteAt(buf, 37)).toBe(true);
    expect(s.deleteAt(buf, 37)).toBe(false);
    expect(s.has(id(42))).toBe(false);
    expect(s.size).toBe(99);
  });

  it('keeps finding IDs whose slots collide after others in their run are deleted', () => {
    const s = new IdSet();
    // Same first four bytes: one probe run.
    const same = (i: number) => 'abcdef01' + id(i).slice(8);
    for (let i = 0; i < 40; i++) s.add(same(i));
    for (let i = 0; i < 40; i += 3) s.delete(same(i));
    for (let i = 0; i < 40; i++) expect(s.has(same(i))).toBe(i % 3 !== 0);
  });
});
