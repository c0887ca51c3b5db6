import { CairnError, serializeError } from '../../core/errors';
import { encodeSnapshot, type Snapshot } from '../../core/data/snapshot';
import type { SnapshotEntry } from '../../core/repository/snapshots';
import type { Repository } from '../../core/repository/repository';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { goStringify } from '../go-json-out';
import { findFiltered } from '../snapshot-filter';

export const summary = 'Modify tags on snapshots';
export const usage = '[flags] [snapshotID ...]';
export const description = `
The "tag" command allows you to modify tags on exiting snapshots.

You can either set/replace the entire set of tags on a snapshot, or
add tags to/remove tags from the existing set.

When no snapshotID is given, all snapshots matching the host, tag and path filter criteria are modified.

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  set: { type: 'strings', help: 'tags which will replace the existing tags in the format `tag[,tag,...]` (can be given multiple times)' },
  add: { type: 'strings', help: 'tags which will be added to the existing tags in the format `tag[,tag,...]` (can be given multiple times)' },
  remove: { type: 'strings', help: 'tags which will be removed from the existing tags in the format `tag[,tag,...]` (can be given multiple times)' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host, when no snapshot ID is given (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist, when no snapshot-ID is given' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path, when no snapshot-ID is given' },
});

/** restic TagLists.Flatten: comma-separated, trimmed, empty ones dropped. */
const flatten = (lists: string[] | undefined) => (lists ?? []).flatMap((l) => l.split(',').map((t) => t.trim())).filter((t) => t !== '');

/** restic changeTags: the new tag list, or undefined when nothing changes. */
export function changedTags(tags: readonly string[], set: string[] | undefined, add: string[], remove: string[]): string[] | undefined {
  if (set) return set;
  const out = [...tags];
  let changed = false;
  for (const t of add) {
    if (out.includes(t)) continue;
    out.push(t);
    changed = true;
  }
  // Go's swap-remove: the last tag takes the removed one's place (order matters in the file).
  for (const t of remove) {
    const i = out.indexOf(t);
    if (i < 0) continue;
    out[i] = out[out.length - 1]!;
    out.pop();
    changed = true;
  }
  return changed ? out : undefined;
}

async function rewrite(repo: Repository, e: SnapshotEntry, tags: string[], signal: AbortSignal): Promise<string> {
  const sn: Snapshot = { ...e.snapshot, tags: tags.length ? tags : undefined, original: e.snapshot.original ?? e.id };
  const id = await repo.saveJSON('snapshots', encodeSnapshot(sn), signal);
  await repo.backend.remove({ type: 'snapshots', name: e.id });
  return id;
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const setGiven = f.set?.length ? flatten(f.set) : undefined;
  const add = flatten(f.add);
  const remove = flatten(f.remove);
  if (!setGiven && !f.add?.length && !f.remove?.length) throw new CairnError('USAGE', 'nothing to do!');
  if (setGiven && (f.add?.length || f.remove?.length)) throw new CairnError('USAGE', '--set and --add/--remove cannot be given at the same time');
  let changed = 0;
  await withRepository(
    ctx,
    'exclusive',
    async ({ repo }) => {
      const list = await findFiltered(repo, ctx.args, { hosts: f.host, tags: f.tag, paths: f.path }, ctx.signal);
      const done = new Set<string>();
      for (const e of list) {
        if (done.has(e.id)) continue;
        done.add(e.id);
        const tags = changedTags(e.snapshot.tags ?? [], setGiven, add, remove);
        if (!tags) continue;
        try {
          const id = await rewrite(repo, e, tags, ctx.signal);
          changed++;
          if (ctx.globals.json) ctx.out.stdout(goStringify({ message_type: 'changed', old_snapshot_id: e.id, new_snapshot_id: id }) + '\n');
          else if (ctx.globals.verbose) ctx.out.stdout(`old snapshot ID: ${e.id} -> new snapshot ID: ${id}\n`);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const s = serializeError(err);
          ctx.out.stderr(`unable to modify the tags for snapshot ID "${e.id}", ignoring: ${s.code}: ${s.message}\n`);
        }
      }
    },
    { announce: true },
  );
  if (ctx.globals.json) ctx.out.stdout(goStringify({ message_type: 'summary', changed_snapshots: changed }) + '\n');
  else if (!ctx.globals.quiet) ctx.out.stdout(changed === 0 ? 'no snapshots were modified\n' : `modified ${changed} snapshots\n`);
  return 0;
}
