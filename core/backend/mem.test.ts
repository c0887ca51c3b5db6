import { describe, expect, it } from 'vitest';
import { backendConformanceSuite } from '../../test/helpers/backend-conformance';
import { MemoryBackend } from './mem';

backendConformanceSuite('MemoryBackend', async () => ({ backend: new MemoryBackend(), cleanup: async () => {} }));

describe('MemoryBackend options', () => {
  it('reports its location and connections', () => {
    const be = new MemoryBackend({ connections: 9, location: 'mem:test' });
    expect(be.connections).toBe(9);
    expect(be.location).toBe('mem:test');
  });

  it('lists a snapshot of its entries, so removing while listing is safe', async () => {
    const be = new MemoryBackend();
    for (const name of ['aa', 'bb', 'cc']) await be.save({ type: 'locks', name }, new Uint8Array([1]));
    const seen: string[] = [];
    for await (const fi of be.list('locks')) {
      seen.push(fi.name);
      await be.remove({ type: 'locks', name: fi.name });
    }
    expect(seen.sort()).toEqual(['aa', 'bb', 'cc']);
  });
});
