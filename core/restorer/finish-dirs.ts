// A restore's last pass over its folders (restic's second traverseTree, leaveDir): --delete
// removes what the target holds that the snapshot does not, then each folder gets its
// metadata, deepest first, so nothing written into it afterwards bumps its times.

import { CairnError, throwIfAborted } from '../errors';
import type { RestorePlan } from './restore-plan';
import type { RestoreReport } from './report';
import type { Selected } from './selection';
import type { RestoreTarget } from './target';

const deepestFirst = (a: string[], b: string[]) => b.length - a.length;
const components = (key: string) => (key === '' ? [] : key.split('/'));

/** Sets every restored folder's metadata (dry: only reports them). */
export async function setDirMetadata(plan: RestorePlan, target: RestoreTarget, report: RestoreReport, dryRun = false): Promise<void> {
  for (const d of plan.dirs.sort((a, b) => deepestFirst(a.path, b.path))) {
    try {
      if (!dryRun) await target.setMetadata(d.path, d.node);
      report.item('restored', d.path, 'dir');
    } catch (e) {
      report.fail(d.path, e);
    }
  }
}

export interface DeleteOptions {
  enabled: boolean;
  select: (path: string[], isDir: boolean) => Selected;
  dryRun: boolean;
  signal?: AbortSignal;
}

/**
 * restic removeUnexpectedFiles, in every folder this restore put something in: each entry the
 * snapshot does not have there, and the selection would have restored, is removed with all it
 * holds (a symlink itself, never what it points to). Nothing is deleted when a node's name was
 * refused (as in restic: the list of expected names is not to be trusted then).
 */
export async function deleteUnexpected(plan: RestorePlan, target: RestoreTarget, report: RestoreReport, o: DeleteOptions): Promise<void> {
  if (!o.enabled || plan.refusedNames) return;
  if (!target.list || !target.remove || !target.stat) throw new CairnError('USAGE', 'this restore target cannot delete files');
  for (const dir of [...plan.made].map(components).sort(deepestFirst)) {
    const expected = plan.names.get(dir.join('/'));
    let names: string[];
    try {
      names = await target.list(dir);
    } catch (e) {
      report.fail(dir, e);
      continue;
    }
    for (const name of names) {
      throwIfAborted(o.signal);
      const path = [...dir, name];
      if (expected?.has(name) || !o.select(path, false).selected) continue;
      try {
        const gone = await entriesBelow(target, path);
        if (!o.dryRun) await target.remove(path, { recursive: true });
        for (const p of gone) report.item('deleted', p, 'other');
      } catch (e) {
        report.fail(path, e);
      }
    }
  }
}

/** `path` and everything below it, deepest first (a symlink is not followed). */
async function entriesBelow(target: RestoreTarget, path: string[]): Promise<string[][]> {
  const out: string[][] = [];
  if ((await target.stat!(path))?.type === 'dir') for (const name of await target.list!(path)) out.push(...(await entriesBelow(target, [...path, name])));
  out.push(path);
  return out;
}
