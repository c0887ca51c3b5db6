import { describe, expect, it } from 'vitest';
import { CairnError, isCairnError } from '../errors';
import { encodeTree, sortByName } from '../data';
import { bareDir, loadParentTree, ParentNodes } from './parent';

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

  it("a folder's entries in name order find their parent nodes by merging, and each passed node is let go", () => {
    const dir = (name: string) => ({ ...bareDir(id), name });
    const nodes = ['a', 'b', 'c\u00e9', 'd', '\uff5e', '\u{1F600}'].map(dir);
    const p = new ParentNodes({ nodes });
    const listed = sortByName(['\u{1F600}', 'd', 'x', 'a', '\uff5e'].map(dir), (n) => n);
    expect(listed.map((n) => n.name)).toEqual(['a', 'd', 'x', '\uff5e', '\u{1F600}']); // bytes: EF BD BE < F0 9F 98 80 (UTF-16 says otherwise)
    expect(listed.map((n) => p.take(n)?.name)).toEqual(['a', 'd', undefined, '\uff5e', '\u{1F600}']);
    expect(nodes.filter(Boolean)).toEqual([]);
  });

  it("a parent tree out of name order (not restic's) is looked up by name", () => {
    const dir = (name: string) => ({ ...bareDir(id), name });
    const p = new ParentNodes({ nodes: ['b', 'a', 'c'].map(dir) });
    expect(['a', 'b', 'c', 'd'].map((name) => p.take({ name })?.name)).toEqual(['a', 'b', 'c', undefined]);
  });
});
