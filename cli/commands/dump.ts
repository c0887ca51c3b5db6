import fs from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { CairnError, serializeError } from '../../core/errors';
import { dumpTree, fileContent, tarDumpWriter, zipDumpWriter } from '../../core/restorer/dump';
import { assertSafePath } from '../../core/data/node-name';
import { lookupPath, splitPath } from '../../core/walker';
import { defineFlags } from '../args';
import { withRepository, type Context } from '../context';
import { nodeDecodePool } from '../pool/decode-pool';
import { resolveSnapshotArg } from '../snapshot-arg';

export const summary = 'Print a backed-up file to stdout';
export const usage = '[flags] snapshotID file';
export const description = `
The "dump" command extracts files from a snapshot from the repository. If a
single file is selected, it prints its contents to stdout. Folders are output
as a tar (default) or zip file containing the contents of the specified folder.
Pass "/" as file name to dump the whole snapshot as an archive file.

The special snapshotID "latest" can be used to use the latest snapshot in the
repository.

To include the folder content at the root of the archive, you can use the
"snapshotID:subfolder" syntax, where "subfolder" is a path within the
snapshot.

EXIT STATUS
===========

Exit status is 0 if the command was successful, and non-zero if there was any error.
`;

export const flags = defineFlags({
  archive: { type: 'string', short: 'a', help: 'set archive format as "tar" or "zip" (default "tar")' },
  target: { type: 'string', short: 't', help: 'write the output to target path' },
  host: { type: 'strings', short: 'H', help: 'only consider snapshots for this host when the snapshot ID is "latest" (can be specified multiple times)' },
  tag: { type: 'strings', help: 'only consider snapshots which include this taglist for snapshot ID "latest"' },
  path: { type: 'strings', help: 'only consider snapshots which include this (absolute) path for snapshot ID "latest"' },
});

/** Writes to stdout or the --target file, waiting for the stream to drain. */
function output(
  ctx: Context<typeof flags>,
  target: string | undefined,
): { write: (b: Uint8Array) => Promise<void>; close: () => Promise<void>; isTTY: boolean } {
  let stream: Writable = process.stdout;
  if (target) {
    try {
      stream = fs.createWriteStream(target, { fd: fs.openSync(target, 'w') });
    } catch (e) {
      throw new CairnError('USAGE', `cannot dump to file: ${(e as Error).message}`, { cause: e });
    }
  }
  return {
    isTTY: !target && process.stdout.isTTY === true,
    async write(b) {
      ctx.out.flush?.();
      if (!stream.write(b)) await once(stream, 'drain');
    },
    async close() {
      if (target) await new Promise<void>((resolve, reject) => stream.end((e?: Error | null) => (e ? reject(e) : resolve())));
    },
  };
}

export async function run(ctx: Context<typeof flags>): Promise<number> {
  const f = ctx.flags;
  const [ref, file] = ctx.args;
  if (ref === undefined || file === undefined || ctx.args.length !== 2) throw new CairnError('USAGE', 'no file and no snapshot ID specified');
  const archive = f.archive ?? 'tar';
  if (archive !== 'tar' && archive !== 'zip') throw new CairnError('USAGE', `unknown archive format "${archive}"`);
  const components = splitPath(file);
  return withRepository(
    ctx,
    'read',
    async ({ repo }) => {
      const filter = { hosts: f.host, tags: f.tag, paths: f.path };
      const sn = await resolveSnapshotArg(repo, ref, filter, ctx.signal);
      await repo.loadIndex({ signal: ctx.signal });
      assertSafePath(components);
      let tree = sn.tree;
      if (components.length) {
        const node = await lookupPath(repo, sn.tree, components, ctx.signal);
        const where = JSON.stringify('/' + components.join('/'));
        if (!node) throw new CairnError('NOT_FOUND', `cannot dump file: path ${where} not found in snapshot`);
        if (node.type === 'file') {
          const out = output(ctx, f.target);
          for await (const b of fileContent(repo, node, ctx.signal)) await out.write(b);
          await out.close();
          return 0;
        }
        if (node.type !== 'dir' || !node.subtree) throw new CairnError('USAGE', `cannot dump file: ${where} should be a file, but is a "${node.type}"`);
        tree = node.subtree;
      }
      const out = output(ctx, f.target);
      if (out.isTTY) throw new CairnError('USAGE', 'cannot dump file: stdout is the terminal, please redirect output');
      const decoders = nodeDecodePool();
      const writer = archive === 'zip' ? zipDumpWriter(out.write) : tarDumpWriter(out.write);
      const errors = await dumpTree(repo, tree, components, writer, {
        signal: ctx.signal,
        decodePack: decoders.decodePack,
        onError: (p, e) => {
          const s = serializeError(e);
          ctx.out.stderr(`ignoring error for ${p}: ${s.code}: ${s.message}\n`);
        },
      }).finally(() => decoders.close());
      await out.close();
      if (errors > 0) {
        ctx.out.stderr(`Fatal: There were ${errors} errors\n`);
        return 1;
      }
      return 0;
    },
    { silent: true },
  );
}
