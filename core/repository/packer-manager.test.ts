import { beforeAll, describe, expect, it } from 'vitest';
import { seededBytes } from '../../test/fixtures/chunker/generate';
import { initEngine } from '../../test/helpers/mem-repo';
import { MemoryBackend } from '../backend/mem';
import { withFaults } from '../../test/helpers/fault-backend';
import { bytesOf, type Handle, type PreparedBody, type Saver } from '../backend/backend';
import { isCairnError } from '../errors';
import { Key } from '../crypto/keys';
import { hashID } from '../id';
import type { IndexPack } from '../index/index-file';
import { readPackHeader } from '../pack/reader';
import { deferred } from '../concurrency/concurrency';
import { PackerManager } from './packer-manager';

const key = new Key(seededBytes(1, 32), seededBytes(2, 16), seededBytes(3, 16));

/** A fake sealed blob of `n` bytes with a unique ID (the manager never opens blobs). */
async function blob(seed: number, n: number): Promise<{ id: string; sealed: Uint8Array }> {
  const sealed = seededBytes(seed, n);
  return { id: await hashID(sealed), sealed };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** A saver whose uploads wait until the test releases them; it tracks uploads in flight. */
function gatedSaver(inner: Saver) {
  const gates: { h: Handle; release: () => void }[] = [];
  const state = { inFlight: 0, maxInFlight: 0, started: 0 };
  const saver: Saver = {
    async save(h, data, o) {
      state.started++;
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      const d = deferred();
      gates.push({ h, release: d.resolve });
      await d.promise;
      await inner.save(h, data, o);
      state.inFlight--;
    },
  };
  const releaseAll = () => {
    for (const g of gates.splice(0)) g.release();
  };
  return { saver, gates, state, releaseAll };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('PackerManager', () => {
  beforeAll(initEngine);

  it('finishes a pack once it reaches the target size; data and trees go to separate packs', async () => {
    const be = new MemoryBackend();
    const saved: { pack: IndexPack; size: number }[] = [];
    const pm = new PackerManager({
      key,
      saver: be,
      packSize: 1000,
      onPackSaved: (pack, size) => void saved.push({ pack: { id: pack.id, blobs: pack.entries.blobs() }, size }),
    });
    for (let i = 0; i < 10; i++) {
      const b = await blob(i, 300);
      await pm.add(i % 2 ? 'tree' : 'data', b.id, b.sealed, 0);
    }
    // 5 per type: 4 × 300 bytes reach 1000 → one full pack per type, one left open.
    expect(pm.pending).toBe(600);
    await pm.flush();
    expect(pm.pending).toBe(0);
    const sizes = saved.map((s) => [s.pack.blobs[0]!.type, s.pack.blobs.length]).sort();
    expect(sizes).toEqual([
      ['data', 1],
      ['data', 4],
      ['tree', 1],
      ['tree', 4],
    ]);
    for (const { pack, size } of saved) {
      expect(new Set(pack.blobs.map((b) => b.type)).size).toBe(1);
      const stored = await be.load({ type: 'data', name: pack.id });
      expect(stored.length).toBe(size);
      expect(await hashID(stored)).toBe(pack.id);
      expect(await readPackHeader(be, key, pack.id, size)).toEqual(pack.blobs);
    }
  });

  it('gives a blob bigger than the target a pack of its own', async () => {
    const saved: IndexPack[] = [];
    const pm = new PackerManager({
      key,
      saver: new MemoryBackend(),
      packSize: 1000,
      onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }),
    });
    const small = await blob(1, 100),
      big = await blob(2, 5000);
    await pm.add('data', small.id, small.sealed, 0);
    await pm.add('data', big.id, big.sealed, 0);
    await pm.flush();
    // The big blob joins the open packer and finishes it at once.
    expect(saved.map((p) => p.blobs.map((b) => b.id))).toEqual([[small.id, big.id]]);
    const big2 = await blob(3, 5000);
    await pm.add('data', big2.id, big2.sealed, 0);
    expect(pm.pending).toBe(0);
    await pm.flush();
    expect(saved[1]!.blobs.map((b) => b.id)).toEqual([big2.id]);
  });

  it('a blob that would overrun the buffer starts the next pack; buffers are reused at one size', async () => {
    const be = new MemoryBackend();
    const sent: Uint8Array[] = [];
    const saved: { pack: IndexPack; size: number }[] = [];
    const pm = new PackerManager({
      key,
      saver: { save: async (h, d, o) => void (sent.push(bytesOf(d)), await be.save(h, d, o)) },
      packSize: 1000,
      onPackSaved: (pack, size) => void saved.push({ pack: { id: pack.id, blobs: pack.entries.blobs() }, size }),
    });
    // The buffer is the target plus 256 KiB: 200 KiB fits behind 900 bytes, 300 KiB does not.
    const [a, b, c, d] = [await blob(1, 900), await blob(2, 200 * 1024), await blob(3, 900), await blob(4, 300 * 1024)];
    await pm.add('data', a.id, a.sealed, 0);
    await pm.add('data', b.id, b.sealed, 0); // overshoots the target like restic: one pack [a, b]
    await pm.flush(); // stored: its buffer is free again
    await pm.add('data', c.id, c.sealed, 0);
    await pm.add('data', d.id, d.sealed, 0); // does not fit behind c: [c] goes, d starts a pack
    await pm.flush();
    expect(saved.map((s) => s.pack.blobs.map((x) => x.id))).toEqual([[a.id, b.id], [c.id], [d.id]]);
    for (const { pack, size } of saved) {
      const stored = await be.load({ type: 'data', name: pack.id });
      expect(await hashID(stored)).toBe(pack.id);
      expect(await readPackHeader(be, key, pack.id, size)).toEqual(pack.blobs);
    }
    // The first two packs were sealed in place in one reused buffer (header included); the
    // pack of the blob larger than a buffer got a bigger one.
    // (Identity compared as booleans: a failing toBe on two buffers diffs them byte by byte.)
    expect(sent[0]!.buffer === sent[1]!.buffer).toBe(true);
    expect(sent[0]!.buffer.byteLength).toBe(1000 + 256 * 1024);
    expect(sent[2]!.buffer === sent[0]!.buffer).toBe(false);
    expect(sent[2]!.buffer.byteLength).toBeGreaterThan(1000 + 256 * 1024);
  });

  it('with growFrom, a pack starts small and grows as blobs come, never while a blob is being sealed into it', async () => {
    const be = new MemoryBackend();
    const sent: Uint8Array[] = [];
    const saved: { pack: IndexPack; size: number }[] = [];
    const pm = new PackerManager({
      key,
      saver: { save: async (h, d, o) => void (sent.push(bytesOf(d)), await be.save(h, d, o)) },
      packSize: 4096,
      growFrom: 256,
      onPackSaved: (pack, size) => void saved.push({ pack: { id: pack.id, blobs: pack.entries.blobs() }, size }),
    });
    const [a, b, c, d] = [await blob(11, 200), await blob(12, 300), await blob(13, 700), await blob(14, 2000)];
    await pm.add('tree', a.id, a.sealed, 0);
    // b is sealed slowly, into a region of the current buffer; c needs a bigger one.
    const sealing = deferred();
    let bWritten = false;
    const addB = pm.addWith('tree', b.id, b.sealed.length, 0, async (dst) => {
      await sealing.promise;
      dst.set(b.sealed);
      bWritten = true;
    });
    let cAdded = false;
    const addC = pm.add('tree', c.id, c.sealed, 0).then(() => (cAdded = true));
    await tick();
    await tick();
    expect(cAdded).toBe(false); // waits for b's region to be written before moving the buffer
    sealing.resolve();
    await addB;
    await addC;
    expect(bWritten).toBe(true);
    await pm.add('tree', d.id, d.sealed, 0);
    await pm.flush();
    expect(saved.map((s) => s.pack.blobs.map((x) => x.id))).toEqual([[a.id, b.id, c.id, d.id]]);
    const { pack, size } = saved[0]!;
    const stored = await be.load({ type: 'data', name: pack.id });
    expect(await hashID(stored)).toBe(pack.id);
    const header = await readPackHeader(be, key, pack.id, size);
    expect(header).toEqual(pack.blobs);
    for (const [x, entry] of [a, b, c, d].map((x, i) => [x, header[i]!] as const))
      expect(stored.subarray(entry.offset, entry.offset + entry.length)).toEqual(x.sealed);
    // Grown from 256 bytes to what 3.2 KB of blobs need, not the 4096 + 256 KiB a standard buffer takes.
    expect(sent[0]!.buffer.byteLength).toBeLessThan(8192);
  });

  it('records compressed lengths in the header and the index entry', async () => {
    const saved: IndexPack[] = [];
    const be = new MemoryBackend();
    const pm = new PackerManager({ key, saver: be, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
    const a = await blob(1, 100),
      b = await blob(2, 200);
    await pm.add('data', a.id, a.sealed, 0);
    await pm.add('data', b.id, b.sealed, 900);
    await pm.flush();
    expect(saved[0]!.blobs.map((x) => [x.offset, x.length, x.uncompressedLength])).toEqual([
      [0, 100, 0],
      [100, 200, 900],
    ]);
  });

  it('reports a pack only after the backend has stored it', async () => {
    const be = new MemoryBackend();
    const g = gatedSaver(be);
    const events: string[] = [];
    const pm = new PackerManager({
      key,
      saver: g.saver,
      packSize: 100,
      onPackSaved: async (pack) => {
        // The pack must already be readable when we hear of it.
        await be.stat({ type: 'data', name: pack.id });
        events.push(`saved ${pack.id.slice(0, 8)}`);
      },
    });
    const b = await blob(1, 150);
    await pm.add('data', b.id, b.sealed, 0);
    await tick();
    expect(g.state.started).toBe(1);
    expect(events).toEqual([]); // upload still running
    const flushed = pm.flush();
    await tick();
    expect(events).toEqual([]);
    g.releaseAll();
    await flushed;
    expect(events).toHaveLength(1);
  });

  it('never runs more uploads at once than allowed, even when adds come concurrently', async () => {
    const be = new MemoryBackend();
    const g = gatedSaver(be);
    const saved: IndexPack[] = [];
    const pm = new PackerManager({
      key,
      saver: g.saver,
      packSize: 100,
      uploads: 2,
      onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }),
    });
    const blobs = await Promise.all(Array.from({ length: 8 }, (_, i) => blob(i, 120)));
    // Eight adders at once (as four file savers sharing one manager do); each fills a pack.
    const adds = blobs.map((b, i) => pm.add(i % 2 ? 'tree' : 'data', b.id, b.sealed, 0));
    for (let round = 0; round < 50 && saved.length < 8; round++) {
      await tick();
      expect(g.state.inFlight).toBeLessThanOrEqual(2);
      g.releaseAll();
    }
    await Promise.all(adds);
    await pm.flush();
    expect(g.state.maxInFlight).toBeLessThanOrEqual(2);
    expect(g.state.maxInFlight).toBe(2);
    expect(saved).toHaveLength(8);
  });

  it('add waits while uploads are saturated', async () => {
    const g = gatedSaver(new MemoryBackend());
    const pm = new PackerManager({ key, saver: g.saver, packSize: 100, uploads: 1, onPackSaved: () => {} });
    const [a, b] = [await blob(1, 120), await blob(2, 120)];
    await pm.add('data', a.id, a.sealed, 0); // upload 1 starts
    let second = false;
    const p = pm.add('data', b.id, b.sealed, 0).then(() => (second = true));
    await tick();
    await tick();
    expect(second).toBe(false);
    g.releaseAll();
    await p;
    expect(second).toBe(true);
    g.releaseAll();
    await tick();
    g.releaseAll();
    await pm.flush();
  });

  it('with one buffer, the next pack waits for the last upload and reuses its buffer', async () => {
    const be = new MemoryBackend();
    const g = gatedSaver(be);
    const sent: Uint8Array[] = [];
    const saver: Saver = { save: (h, d, o) => (sent.push(bytesOf(d)), g.saver.save(h, d, o)) };
    const saved: { pack: IndexPack; size: number }[] = [];
    const pm = new PackerManager({
      key,
      saver,
      packSize: 100,
      uploads: 1,
      buffers: 1,
      onPackSaved: (pack, size) => void saved.push({ pack: { id: pack.id, blobs: pack.entries.blobs() }, size }),
    });
    const bs = [await blob(1, 120), await blob(2, 120), await blob(3, 120)];
    await pm.add('data', bs[0]!.id, bs[0]!.sealed, 0); // pack 1 full: its upload waits at the gate
    let second = false;
    const p = pm.add('data', bs[1]!.id, bs[1]!.sealed, 0).then(() => (second = true));
    for (let i = 0; i < 5; i++) await tick();
    expect(second).toBe(false); // no second buffer while the first is uploading
    expect(g.state.started).toBe(1);
    g.releaseAll();
    await p;
    const q = pm.add('data', bs[2]!.id, bs[2]!.sealed, 0);
    for (let i = 0; i < 5; i++) {
      await tick();
      g.releaseAll();
    }
    await q;
    const f = pm.flush();
    for (let i = 0; i < 5; i++) {
      await tick();
      g.releaseAll();
    }
    await f;
    expect(saved.map((x) => x.pack.blobs.map((b) => b.id))).toEqual(bs.map((b) => [b.id]));
    expect(new Set(sent.map((d) => d.buffer)).size).toBe(1); // one buffer for all three packs
    for (const { pack, size } of saved) {
      expect(await hashID(await be.load({ type: 'data', name: pack.id }))).toBe(pack.id);
      expect(await readPackHeader(be, key, pack.id, size)).toEqual(pack.blobs);
    }
  });

  it('with a saver that prepares its bodies, one buffer takes the next pack while the last one uploads', async () => {
    // A browser's PUT takes a Blob (a copy) of the pack: the buffer is free once it is made.
    const be = new MemoryBackend();
    const g = gatedSaver(be);
    const prepared: Uint8Array[] = [];
    const saver: Saver = {
      prepare: async (data) => (prepared.push(data), { length: data.length, prepared: data.slice() }),
      save: (h, d, o) => g.saver.save(h, (d as PreparedBody).prepared as Uint8Array, o),
    };
    const saved: { pack: IndexPack; size: number }[] = [];
    const pm = new PackerManager({
      key,
      saver,
      packSize: 100,
      uploads: 2,
      buffers: 1,
      onPackSaved: (pack, size) => void saved.push({ pack: { id: pack.id, blobs: pack.entries.blobs() }, size }),
    });
    const bs = [await blob(1, 120), await blob(2, 120), await blob(3, 120)];
    await pm.add('data', bs[0]!.id, bs[0]!.sealed, 0); // pack 1 full: its upload waits at the gate
    await pm.add('data', bs[1]!.id, bs[1]!.sealed, 0); // went into the same buffer: pack 2 uploads too
    for (let i = 0; i < 5; i++) await tick();
    expect(g.state.inFlight).toBe(2);
    // Both uploads are under way; a third pack waits for an upload slot, not for a buffer.
    const third = pm.add('data', bs[2]!.id, bs[2]!.sealed, 0);
    const f = third.then(() => pm.flush());
    for (let i = 0; i < 10; i++) {
      await tick();
      g.releaseAll();
    }
    await f;
    expect(g.state.maxInFlight).toBe(2);
    expect(new Set(prepared.map((d) => d.buffer)).size).toBe(1); // one buffer for all three packs
    expect(saved.map((x) => x.pack.blobs.map((b) => b.id))).toEqual(bs.map((b) => [b.id]));
    // Each stored pack is what was sealed, though its buffer held the next one by then.
    for (const { pack, size } of saved) {
      expect(await hashID(await be.load({ type: 'data', name: pack.id }))).toBe(pack.id);
      expect(await readPackHeader(be, key, pack.id, size)).toEqual(pack.blobs);
    }
  });

  it('with one buffer, a pack still being sealed when full counts as coming back: no second buffer', async () => {
    // A blob fills the pack and is still being sealed into it (its upload not yet started)
    // when the next blob comes: that one waits for the buffer instead of making another.
    const be = new MemoryBackend();
    const sent: Uint8Array[] = [];
    const saver: Saver = { save: (h, d, o) => (sent.push(bytesOf(d)), be.save(h, d, o)) };
    const pm = new PackerManager({ key, saver, packSize: 100, uploads: 1, buffers: 1, onPackSaved: () => {} });
    const bs = [await blob(1, 120), await blob(2, 120), await blob(3, 120)];
    const sealing = deferred();
    const first = pm.addWith('data', bs[0]!.id, 120, 0, async (dst) => {
      await sealing.promise;
      dst.set(bs[0]!.sealed);
    });
    await tick();
    const rest = Promise.all([pm.add('data', bs[1]!.id, bs[1]!.sealed, 0), pm.add('data', bs[2]!.id, bs[2]!.sealed, 0)]);
    await tick();
    sealing.resolve();
    await Promise.all([first, rest]);
    await pm.flush();
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((d) => d.buffer)).size).toBe(1);
  });

  it('with one buffer, a pack per blob type still opens (no upload could free one): no deadlock', async () => {
    const be = new MemoryBackend();
    const saved: IndexPack[] = [];
    const pm = new PackerManager({
      key,
      saver: be,
      packSize: 1000,
      uploads: 1,
      buffers: 1,
      onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }),
    });
    const [d, t] = [await blob(1, 100), await blob(2, 100)];
    await pm.add('data', d.id, d.sealed, 0);
    await pm.add('tree', t.id, t.sealed, 0);
    await pm.flush();
    expect(saved.map((p) => p.blobs[0]!.type).sort()).toEqual(['data', 'tree']);
  });

  it('with one buffer, a failed upload fails the add waiting for that buffer', async () => {
    const be = withFaults(new MemoryBackend(), { ops: ['save'], failFirst: 1 });
    const pm = new PackerManager({ key, saver: be, packSize: 100, uploads: 1, buffers: 1, onPackSaved: () => {} });
    const [a, b] = [await blob(1, 120), await blob(2, 120)];
    await pm.add('data', a.id, a.sealed, 0);
    expect(isCairnError(await rejection(pm.add('data', b.id, b.sealed, 0)), 'NETWORK')).toBe(true);
  });

  it('an upload failure surfaces on the next add, and the failed pack is never reported', async () => {
    const be = withFaults(new MemoryBackend(), { ops: ['save'], failFirst: 1 });
    const saved: IndexPack[] = [];
    const pm = new PackerManager({ key, saver: be, packSize: 100, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
    const [a, b, c] = [await blob(1, 120), await blob(2, 10), await blob(3, 10)];
    await pm.add('data', a.id, a.sealed, 0); // pack 1 goes up and fails in the background
    await tick();
    await tick();
    const e = await rejection(pm.add('data', b.id, b.sealed, 0));
    expect(isCairnError(e, 'NETWORK')).toBe(true);
    expect(saved).toEqual([]);
    // It stays failed: flush reports it too.
    expect(isCairnError(await rejection(pm.add('data', c.id, c.sealed, 0)), 'NETWORK')).toBe(true);
    expect(isCairnError(await rejection(pm.flush()), 'NETWORK')).toBe(true);
  });

  it('an upload failure during flush rejects flush', async () => {
    const be = withFaults(new MemoryBackend(), { ops: ['save'], failFirst: 1 });
    const saved: IndexPack[] = [];
    const pm = new PackerManager({ key, saver: be, onPackSaved: (p) => void saved.push({ id: p.id, blobs: p.entries.blobs() }) });
    const a = await blob(1, 50);
    await pm.add('tree', a.id, a.sealed, 0);
    expect(isCairnError(await rejection(pm.flush()), 'NETWORK')).toBe(true);
    expect(saved).toEqual([]);
  });

  it('a failing onPackSaved fails the manager too', async () => {
    const pm = new PackerManager({
      key,
      saver: new MemoryBackend(),
      onPackSaved: () => {
        throw new Error('index bookkeeping broke');
      },
    });
    const a = await blob(1, 50);
    await pm.add('data', a.id, a.sealed, 0);
    await expect(pm.flush()).rejects.toThrow('index bookkeeping broke');
  });

  it('delays from a slow backend do not reorder saving and reporting', async () => {
    const inner = new MemoryBackend();
    const be = withFaults(inner, { ops: ['save'], delayMs: 5 });
    const order: string[] = [];
    const pm = new PackerManager({
      key,
      saver: {
        save: async (h, d, o) => {
          await be.save(h, d, o);
          order.push(`stored ${h.name.slice(0, 6)}`);
        },
      },
      packSize: 100,
      uploads: 3,
      onPackSaved: (p) => void order.push(`reported ${p.id.slice(0, 6)}`),
    });
    for (let i = 0; i < 6; i++) {
      const b = await blob(i, 120);
      await pm.add('data', b.id, b.sealed, 0);
    }
    await pm.flush();
    expect(order).toHaveLength(12);
    for (const line of order.filter((l) => l.startsWith('reported'))) {
      const id = line.split(' ')[1]!;
      expect(order.indexOf(`stored ${id}`)).toBeLessThan(order.indexOf(line));
    }
  });

  it('flush with nothing open saves nothing; an aborted signal stops adds', async () => {
    const g = gatedSaver(new MemoryBackend());
    const ctl = new AbortController();
    const pm = new PackerManager({ key, saver: g.saver, onPackSaved: () => {}, signal: ctl.signal });
    await pm.flush();
    expect(g.state.started).toBe(0);
    ctl.abort();
    const a = await blob(1, 10);
    expect(isCairnError(await rejection(pm.add('data', a.id, a.sealed, 0)), 'ABORTED')).toBe(true);
  });
});
