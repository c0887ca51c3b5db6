// Where a restore writes: one implementation per runtime (Node fs in cli/adapters, a picked
// directory via File System Access in workers/). Paths are components relative to the
// target's root.

import type { Node } from '../data/node';

export interface FileWriter {
  /** Writes bytes at an offset; writes may arrive in any order. */
  write(offset: number, data: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional: applies the node's metadata (as setMetadata would) and closes, in one step on
   * the open file. The restorer prefers it over close() + setMetadata().
   */
  finish?(node: Node): Promise<void>;
}

export interface RestoreTarget {
  mkdir(path: string[]): Promise<void>;
  /** Creates (or truncates) a file of the given final size. */
  createFile(path: string[], size: number): Promise<FileWriter>;
  symlink(path: string[], target: string): Promise<void>;
  /** Applies mode, times and (where permitted) ownership after the content is written. */
  setMetadata(path: string[], node: Node): Promise<void>;
}
