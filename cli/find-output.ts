// restic find's statefulOutput: matches grouped by snapshot (text: a heading per snapshot;
// JSON: one array of {matches, hits, snapshot}), object hits (blob/tree lookups), and the
// --show-pack-id lines.

import type { Node } from '../core/data/node';
import type { ID } from '../core/id';
import type { Repository } from '../core/repository/repository';
import type { SnapshotEntry } from '../core/repository/snapshots';
import type { Context } from './context';
import { goStringify } from './go-json-out';
import { findMatchJSON, formatLocalTime, formatNode } from './node-format';

export class FindOutput {
  #inUse = false;
  #current: SnapshotEntry | undefined;
  #printed: SnapshotEntry | undefined;
  #hits = 0;

  constructor(
    readonly ctx: Context,
    readonly long: boolean,
  ) {}

  #write(s: string): void {
    this.ctx.out.stdout(s);
  }

  snapshot(sn: SnapshotEntry): void {
    this.#current = sn;
  }

  match(path: string, node: Node): void {
    const sn = this.#current!;
    if (!this.ctx.globals.json) {
      if (this.#printed !== sn) {
        const verbose = !this.ctx.globals.quiet;
        if (this.#printed && verbose) this.#write('\n');
        this.#printed = sn;
        if (verbose) this.#write(`Found matching entries in snapshot ${sn.id.slice(0, 8)} from ${formatLocalTime(sn.snapshot.time)}\n`);
      }
      this.#write(formatNode(path, node, this.long) + '\n');
      return;
    }
    if (!this.#inUse) {
      this.#write('[');
      this.#inUse = true;
    }
    if (this.#printed !== sn) {
      if (this.#printed) this.#write(`],"hits":${this.#hits},"snapshot":"${this.#printed.id}"},`);
      this.#write('{"matches":[');
      this.#printed = sn;
      this.#hits = 0;
    }
    if (this.#hits > 0) this.#write(',');
    this.#write(findMatchJSON(path, node));
    this.#hits++;
  }

  object(kind: 'blob' | 'tree', id: ID, path: string, parentTree: ID, sn: SnapshotEntry): void {
    if (this.ctx.globals.json) {
      if (!this.#inUse) {
        this.#write('[');
        this.#inUse = true;
      }
      if (this.#hits > 0) this.#write(',');
      const o = { object_type: kind, id, path, parent_tree: parentTree || undefined, snapshot: sn.id, time: sn.snapshot.time.format() };
      this.#write(goStringify(o));
      this.#hits++;
      return;
    }
    let s = `Found ${kind} ${id}\n`;
    s += kind === 'blob' ? ` ... in file ${path}\n     (tree ${parentTree})\n` : ` ... path ${path}\n`;
    s += ` ... in snapshot ${sn.id.slice(0, 8)} (${formatLocalTime(sn.snapshot.time)})\n`;
    this.#write(s);
  }

  finish(): void {
    if (!this.ctx.globals.json) return;
    if (this.#printed) this.#write(`],"hits":${this.#hits},"snapshot":"${this.#printed.id}"}`);
    this.#write(this.#inUse ? ']\n' : '[]\n');
  }

  /** restic findObjectsPacks: the pack holding each blob or tree asked for. */
  packsOf(repo: Repository, blobs: Set<string>, trees: Set<string>): void {
    const one = (id: string, type: 'data' | 'tree') => {
      if (!/^[0-9a-f]{64}$/.test(id)) {
        this.#write(`Note: cannot find pack for object '${id}', unable to parse ID: invalid length for ID: ${goStringify(id)}\n`);
        return;
      }
      const loc = repo.index.lookup(type, id);
      if (!loc) {
        this.#write(`Object ${type} with type ${id.slice(0, 8)} not found in the index\n`);
        return;
      }
      this.#write(`Object belongs to pack ${loc.packID}\n ... Pack ${loc.packID}: <${type}/${id.slice(0, 8)}>\n`);
    };
    for (const id of blobs) one(id, 'data');
    for (const id of trees) one(id, 'tree');
  }
}
