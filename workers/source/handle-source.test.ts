// handleSource over a model of a picked folder: the folder itself is the only target, and a
// folder removed since it was picked is not there (it must not back up as an empty folder).
import { describe, expect, it } from 'vitest';
import { handleSource } from './handle-source';

const dom = (name: string) => new DOMException(name, name);

function folder(name: string, removed: boolean): FileSystemDirectoryHandle {
  return {
    kind: 'directory',
    name,
    values() {
      return {
        next: () => (removed ? Promise.reject(dom('NotFoundError')) : Promise.resolve({ done: true, value: undefined })),
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    },
  } as unknown as FileSystemDirectoryHandle;
}

describe('handleSource', () => {
  it('stats the picked folder while it is there', async () => {
    const s = handleSource(folder('Photos', false));
    expect((await s.stat(s.target)).node).toMatchObject({ name: 'Photos', type: 'dir' });
  });

  it('a folder removed since it was picked: SOURCE_READ naming it, not an empty folder', async () => {
    const s = handleSource(folder('Photos', true));
    await expect(s.stat(s.target)).rejects.toMatchObject({ code: 'SOURCE_READ', message: '/Photos: vanished before it could be read' });
  });

  it('nothing but the picked folder is a target', async () => {
    const s = handleSource(folder('Photos', false));
    await expect(s.stat('/elsewhere')).rejects.toMatchObject({ code: 'SOURCE_READ' });
  });
});
