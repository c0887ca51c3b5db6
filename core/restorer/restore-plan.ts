// A restore's first pass (restic's traverseTree with its first visitor): walk the tree once,
// make the directories, symlinks and empty files, decide for each file what the target's
// existing content is worth (./overwrite.ts), and list the blobs still to write by pack, each
// with every file position that needs it.

import { CairnError, throwIfAborted } from '../errors';
import type { Node } from '../data/node';
import type { ID } from '../id';
import type { Repository } from '../repository/repository';
import type { BlobLocation } from '../index/master-index';
import { walk } from '../walker';
import { invalidNameError } from '../data/node-name';
import { decideFile, existingAt, mayReplace, type ExistingContent, type FileDecision, type OverwriteMode } from './overwrite';
import type { Selected } from './selection';
import type { RestoreReport } from './report';
import { finishWriter, type FileWriter, type RestoreTarget } from './target';

export interface PlannedFile {
  path: string[];
  /** What writing and finishing it needs of its node (see keptNode). */
  node: Node;
  /** Blob writes still to come. */
  remaining: number;
  /** An existing file is resumed in place (restic's 'updated'): its intact blobs are kept. */
  keep: boolean;
  writer?: Promise<FileWriter>;
  /** Set when a blob or a write failed: the file is reported once and removed at the end. */
  failed?: boolean;
}

export interface Use {
  file: PlannedFile;
  /** Where in the file the blob goes. */
  offset: number;
}

/**
 * A blob to restore and where it goes: its first use inline (most blobs have one), any others
 * in `more`. A restore of a million small files holds one per blob until it ends, so no
 * object or array is made per blob that one use does not need.
 */
export interface PackBlob extends Use {
  loc: BlobLocation;
  more?: Use[];
}

export interface RestorePlan {
  /** Folders restored: selected, or holding something restored (their metadata is set last). */
  dirs: { path: string[]; node: Node }[];
  /** Every file whose content this restore writes (or completes in place). */
  files: PlannedFile[];
  /** pack → blob ID → the blob and where it goes. */
  packs: Map<ID, Map<ID, PackBlob>>;
  /** Folders holding something restored, made by this restore or found ('' is the root). */
  made: Set<string>;
  /** With PlanOptions.names: each folder walked → the names the snapshot has in it. */
  names: Map<string, Set<string>>;
  /** A node's name was refused somewhere (then nothing is deleted, as in restic). */
  refusedNames: boolean;
}

export interface PlanOptions {
  select: (path: string[], isDir: boolean) => Selected;
  overwrite: OverwriteMode;
  /** Look only: nothing is made in the target. */
  dryRun: boolean;
  /** Record every folder's names in the snapshot (for --delete). */
  names: boolean;
  /** Keep each file's content list (to read what was written back against it, --verify). */
  keepContent?: boolean;
  signal?: AbortSignal;
}

const isAbort = (e: unknown) => e instanceof CairnError && e.code === 'ABORTED';

/**
 * The part of a file's node a restore keeps until it ends (one per file): what a target
 * applies (type, mode, times, owner, attributes) and its size, without what only identified
 * it where it was backed up (inode, device, links) and, unless asked, its content list (its
 * blobs are planned by then). Every kept node has the same fields, so they share one shape.
 */
function keptNode(node: Node, content: boolean): Node {
  const kept: Node = {
    name: node.name,
    type: node.type,
    mode: node.mode,
    mtime: node.mtime,
    atime: node.atime,
    ctime: node.ctime,
    uid: node.uid,
    gid: node.gid,
    user: node.user,
    group: node.group,
    size: node.size,
    content: content ? node.content : null,
  };
  if (node.rawName) kept.rawName = node.rawName;
  if (node.extendedAttributes) kept.extendedAttributes = node.extendedAttributes;
  if (node.genericAttributes) kept.genericAttributes = node.genericAttributes;
  return kept;
}
const NEW_FILE: FileDecision = Object.freeze({ kind: 'restore' });

export class RestorePlanner {
  readonly plan: RestorePlan = { dirs: [], files: [], packs: new Map(), made: new Set(), names: new Map(), refusedNames: false };
  /** Every folder walked, by path: the ones this restore puts something in get its metadata. */
  readonly #dirNodes = new Map<string, Node>();
  /** Folders the target would not make (a name a browser refuses, say): reported once, their contents not attempted. */
  readonly #refused = new Set<string>();

  constructor(
    private readonly repo: Repository,
    private readonly target: RestoreTarget,
    private readonly opts: PlanOptions,
    private readonly report: RestoreReport,
  ) {}

  async run(treeID: ID): Promise<RestorePlan> {
    const { select, signal } = this.opts;
    const walker = walk(this.repo, treeID, {
      signal,
      enter: (item) => !this.#refused.has(item.path.join('/')) && select(item.path, true).descend,
      onTreeError: (path, _id, e) => this.report.fail(path, e),
      onInvalidName: (dir, node, problem) => {
        this.plan.refusedNames = true;
        this.report.fail([...dir, JSON.stringify(node.name)], invalidNameError(dir, node.name, problem));
      },
    });
    for await (const { path, node } of walker) {
      throwIfAborted(signal);
      if (this.opts.names) this.#name(path);
      if (node.type === 'dir') this.#dirNodes.set(path.join('/'), node);
      if (!select(path, node.type === 'dir').selected) continue;
      try {
        await this.#entry(path, node);
      } catch (e) {
        if (isAbort(e)) throw e;
        this.report.fail(path, e);
      }
    }
    for (const key of this.plan.made) {
      const node = key === '' ? undefined : this.#dirNodes.get(key);
      if (!node) continue;
      this.plan.dirs.push({ path: key.split('/'), node });
      this.report.dirs++;
      this.report.planned();
    }
    this.report.progress.totalsFinal = true;
    return this.plan;
  }

  async #entry(path: string[], node: Node): Promise<void> {
    if (node.type === 'dir') return this.#dir(path, node);
    if (node.type !== 'file' && node.type !== 'symlink') return; // devices, fifos, sockets: not restored (restic needs root for most)
    const dir = path.slice(0, -1);
    if (!this.plan.made.has(dir.join('/'))) await this.#ensureDir(dir);
    if (node.type === 'symlink') await this.#symlink(path, node);
    else await this.#file(path, node);
  }

  #name(path: string[]): void {
    const dir = path.slice(0, -1).join('/');
    let names = this.plan.names.get(dir);
    if (!names) this.plan.names.set(dir, (names = new Set()));
    names.add(path[path.length - 1]!);
  }

  async #dir(path: string[], node: Node): Promise<void> {
    await this.#ensureDir(path);
    if (!node.subtree) throw new CairnError('BAD_TREE', `directory ${JSON.stringify(node.name)} has no subtree; its contents are lost`);
  }

  async #symlink(path: string[], node: Node): Promise<void> {
    if (!mayReplace(this.opts.overwrite, node, await existingAt(this.target, path))) return this.report.skipped(path, 0);
    this.report.planned();
    if (!this.opts.dryRun) {
      await this.target.symlink(path, node.linkTarget ?? '');
      await this.target.setMetadata(path, node);
    }
    this.report.others++;
    this.report.item('restored', path, 'other');
  }

  async #file(path: string[], node: Node): Promise<void> {
    if (!node.content) throw new CairnError('BAD_TREE', `file ${JSON.stringify(node.name)} has no content list`);
    const locs = node.content.map((id) => {
      const loc = this.repo.index.lookup('data', id);
      if (!loc) throw new CairnError('BLOB_NOT_FOUND', `data blob ${id.slice(0, 8)} is not in any index`, { detail: { blob: id } });
      return loc;
    });
    const size = node.size ?? 0;
    // In a folder this restore made there is nothing to look at (most files of a fresh restore).
    const decision = this.target.isNew?.(path.slice(0, -1)) ? NEW_FILE : await decideFile(this.repo, this.target, path, node, this.opts.overwrite);
    if (decision.kind !== 'restore') {
      this.report.skipped(path, size);
      if (decision.kind === 'unchanged' && !this.opts.dryRun) await this.target.setMetadata(path, node);
      return;
    }
    const progress = this.report.progress;
    progress.total.files++;
    progress.total.bytes += size;
    this.report.planned();
    const f: PlannedFile = { path, node: keptNode(node, this.opts.keepContent ?? false), remaining: 0, keep: decision.existing !== undefined };
    if (this.opts.dryRun) {
      progress.done.files++;
      progress.done.bytes += size;
      this.report.files++;
      this.report.item(f.keep ? 'updated' : 'restored', path, 'file', size);
      return;
    }
    this.#addBlobs(f, locs, decision.existing);
    this.plan.files.push(f);
    if (f.remaining === 0) {
      // Empty, or every blob intact already: only its size and metadata to set.
      await finishWriter(await this.target.createFile(path, size, { keep: f.keep }), this.target, path, node);
      this.report.files++;
      progress.done.files++;
      this.report.item(f.keep ? 'updated' : 'restored', path, 'file', size);
    }
  }

  /** Plans the blobs `existing` does not already hold; those it does count as done. */
  #addBlobs(f: PlannedFile, locs: BlobLocation[], existing: ExistingContent | undefined): void {
    let offset = 0;
    for (const [i, loc] of locs.entries()) {
      const length = loc.uncompressedLength || loc.length - 32;
      if (existing?.matches[i]) this.report.progress.done.bytes += length;
      else {
        let pack = this.plan.packs.get(loc.packID);
        if (!pack) this.plan.packs.set(loc.packID, (pack = new Map()));
        const b = pack.get(loc.id);
        if (!b) pack.set(loc.id, { loc, file: f, offset });
        else if (b.more) b.more.push({ file: f, offset });
        else b.more = [{ file: f, offset }];
        f.remaining++;
      }
      offset += length;
    }
  }

  async #ensureDir(path: string[]): Promise<void> {
    // Most calls are for a directory already made (every file's own): one key, not one per
    // ancestor (building every ancestor's key per file was a large part of a restore's
    // garbage). Otherwise the folders missing are found from the deepest
    // made one up (usually the parent, made as the walk entered it), each key cut from its
    // child's: a few lookups per folder, so a tree nested thousands deep costs its depth, not
    // the cube of it (every ancestor of every folder looked up).
    const made = this.plan.made;
    made.add('');
    if (path.length === 0) return;
    const missing = [path.join('/')]; // deepest first
    if (made.has(missing[0]!)) return;
    for (let n = path.length - 1; n > 0; n--) {
      const parent = missing[missing.length - 1]!.slice(0, -(path[n]!.length + 1));
      if (made.has(parent)) break;
      missing.push(parent);
    }
    for (let k = missing.length - 1; k >= 0; k--) {
      const key = missing[k]!;
      made.add(key);
      if (this.opts.dryRun) continue;
      await this.target.mkdir(path.slice(0, path.length - k)).catch((e: unknown) => {
        made.delete(key);
        this.#refused.add(key);
        throw e;
      });
    }
  }
}
