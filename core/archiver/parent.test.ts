import { describe, expect, it } from 'vitest';
import { CairnError, isCairnError } from '../errors';
import { encodeTree } from '../data';
import { bareDir, loadParentTree } from './parent';

const id = 'ab'.repeat(32);

describe('parent trees', () => {
  it('a parent tree that cannot be read or decoded is as if there were none', async () => {
    expect(await loadParentTree({ loadBlob: async () => new TextEncoder().encode('{not json') }, id)).toBeUndefined();
    expect(await loadParentTree({ loadBlob: async () => Promise.reject(new CairnError('BLOB_NOT_FOUND', 'gone')) }, id)).toBeUndefined();
    expect(await loadParentTree({ loadBlob: async () => Promise.reject(new Error('boom')) }, undefined)).toBeUndefined();
    const tree = await loadParentTree({ loadBlob: async () => encodeTree([{ ...bareDir(id), name: 'x' }]) }, id);
    expect(tree!.nodes.map((n) => n.name)).toEqual(['x']);
  });

  it('a cancel is not swallowed', async () => {
    const e = await loadParentTree({ loadBlob: async () => Promise.reject(new CairnError('ABORTED', 'cancelled')) }, id).catch((x) => x);
    expect(isCairnError(e, 'ABORTED')).toBe(true);
  });
});
