import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initEngine, memRepo } from '../../test/helpers/mem-repo';
import { writeHostileSnapshot, type HostileNode } from '../../test/helpers/hostile-repo';
import { loadSnapshot } from '../repository/snapshots';
import { loadTree } from '../walker';
import { zipTree } from './zip-tree';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const LIST = `
import sys, zipfile, json
z = zipfile.ZipFile(sys.argv[1])
print(json.dumps({i.filename: z.read(i).decode('utf8', 'replace') for i in z.infolist()}))
`;

/** The archive of `nodes` zipped under `name`, unpacked: entry name → content. */
async function zipped(nodes: HostileNode[], name = 'snap') {
  const { repo } = await memRepo();
  const tree = (await loadSnapshot(repo, await writeHostileSnapshot(repo, nodes))).tree;
  const chunks: Uint8Array[] = [];
  const result = await zipTree(repo, { kind: 'tree', tree, name }, (c) => void chunks.push(c.slice()));
  const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-tree-'));
  try {
    writeFileSync(join(dir, 'a.zip'), Buffer.concat(chunks));
    const entries = JSON.parse(execFileSync(PYTHON, ['-c', LIST, join(dir, 'a.zip')], { encoding: 'utf8' })) as Record<string, string>;
    // Info-ZIP's unzip into an empty folder: nothing appears beside it.
    execFileSync('mkdir', [join(dir, 'x')]);
    execFileSync('unzip', ['-q', join(dir, 'a.zip'), '-d', join(dir, 'x')]);
    return { entries, result, beside: readdirSync(dir).sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('zipTree on a hostile tree', () => {
  beforeAll(initEngine);

  it('leaves out names that would leave the folder, lists them, and zips the rest', async () => {
    const { entries, result, beside } = await zipped([
      { name: '..', type: 'dir', children: [{ name: 'up.txt', type: 'file', data: 'up' }] },
      { name: '../x', type: 'file', data: 'x' },
      { name: '/abs', type: 'file', data: 'abs' },
      { name: 'good.txt', type: 'file', data: 'good' },
      { name: 'lnk', type: 'symlink', target: '/tmp' },
      { name: 'lnk', type: 'dir', children: [{ name: 'planted.txt', type: 'file', data: 'p' }] },
      {
        name: 'd',
        type: 'dir',
        children: [
          { name: '', type: 'file', data: 'e' },
          { name: 'ok', type: 'file', data: 'ok' },
        ],
      },
    ]);
    expect(beside).toEqual(['a.zip', 'x']);
    const names = Object.keys(entries);
    expect(names.filter((n) => n !== 'CAIRN-ERRORS.txt').sort()).toEqual(['snap/', 'snap/d/', 'snap/d/ok', 'snap/good.txt', 'snap/lnk'].sort());
    expect(entries['snap/good.txt']).toBe('good');
    expect(result.errors.map((e) => e.code)).toEqual(Array(5).fill('INVALID_NAME'));
    expect(entries['CAIRN-ERRORS.txt']).toContain('"../x"');
  });

  it('names its error list so that it does not repeat a name in the archive', async () => {
    const { entries } = await zipped(
      [
        { name: 'CAIRN-ERRORS.txt', type: 'file', data: 'mine' },
        { name: '..', type: 'file', data: 'bad' },
      ],
      '',
    );
    expect(entries['CAIRN-ERRORS.txt']).toBe('mine');
    expect(entries['CAIRN-ERRORS-1.txt']).toContain('INVALID_NAME');
  });

  it('refuses a root whose own name could leave the folder', async () => {
    const { repo } = await memRepo();
    const tree = (await loadSnapshot(repo, await writeHostileSnapshot(repo, [{ name: 'f', type: 'file', data: 'f' }]))).tree;
    await expect(zipTree(repo, { kind: 'tree', tree, name: '..' }, () => {})).rejects.toMatchObject({ code: 'INVALID_NAME' });
  });

  it('zips several roots of one folder side by side, and refuses any root whose name could leave the folder', async () => {
    const { repo } = await memRepo();
    const nodes: HostileNode[] = [
      { name: 'a.txt', type: 'file', data: 'A' },
      { name: 'skip.txt', type: 'file', data: 'S' },
      { name: 'sub', type: 'dir', children: [{ name: 'in.txt', type: 'file', data: 'IN' }] },
    ];
    const root = await loadTree(repo, (await loadSnapshot(repo, await writeHostileSnapshot(repo, nodes))).tree);
    const file = root.nodes.find((n) => n.name === 'a.txt')!;
    const sub = root.nodes.find((n) => n.name === 'sub')!;
    const chunks: Uint8Array[] = [];
    const result = await zipTree(
      repo,
      [
        { kind: 'node', node: file },
        { kind: 'tree', tree: sub.subtree!, name: 'sub' },
      ],
      (c) => void chunks.push(c.slice()),
    );
    expect(result).toMatchObject({ files: 2, errors: [] });
    const dir = mkdtempSync(join(tmpdir(), 'cairn-zip-tree-'));
    try {
      writeFileSync(join(dir, 'a.zip'), Buffer.concat(chunks));
      const entries = JSON.parse(execFileSync(PYTHON, ['-c', LIST, join(dir, 'a.zip')], { encoding: 'utf8' })) as Record<string, string>;
      expect(entries).toEqual({ 'sub/': '', 'a.txt': 'A', 'sub/in.txt': 'IN' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const bad = [
      { kind: 'node' as const, node: file },
      { kind: 'tree' as const, tree: sub.subtree!, name: '../up' },
    ];
    await expect(zipTree(repo, bad, () => {})).rejects.toMatchObject({ code: 'INVALID_NAME' });
  });
});
