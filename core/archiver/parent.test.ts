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

  it('what cannot be read is told in restic’s words (wrapLoadTreeError), keeping the cause’s code', async () => {
    const told: CairnError[] = [];
    const onError = (e: CairnError) => told.push(e);
    await loadParentTree({ loadBlob: async () => Promise.reject(new CairnError('MAC_MISMATCH', 'ciphertext verification failed')) }, id, undefined, onError);
    await loadParentTree({ loadBlob: async () => Promise.reject(new CairnError('BLOB_NOT_FOUND', 'gone')) }, id, undefined, onError);
    await loadParentTree({ loadBlob: async () => new TextEncoder().encode('{not json') }, undefined, undefined, onError);
    expect(told.map((e) => [e.code, e.message])).toEqual([
      ['MAC_MISMATCH', `tree ${id} could not be loaded; the repository could be damaged: ciphertext verification failed`],
      ['BLOB_NOT_FOUND', `tree ${id} is not known; the repository could be damaged, run \`repair index\` to try to repair it`],
    ]);
  });

  it('a cancel is not swallowed', async () => {
    const told: unknown[] = [];
    const e = await loadParentTree({ loadBlob: async () => Promise.reject(new CairnError('ABORTED', 'cancelled')) }, id, undefined, (x) => told.push(x)).catch(
      (x) => x,
    );
    expect(isCairnError(e, 'ABORTED')).toBe(true);
    expect(told).toEqual([]);
  });
});
