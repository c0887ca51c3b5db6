// What a file-saver Web Worker is started with; the messages themselves are
// core/archiver/saver-protocol.ts's (shared with the Node CLI's threads), plus start-up.

import type { SerializedError } from '../../core/errors';
import type { FromSaver, ToSaver } from '../../core/archiver/saver-protocol';
import type { CompressionMode } from '../../core/repository/blob-codec';
import type { RepoLocation } from '../api';
import type { Sha256Choice } from '../sha256-choice';

export interface SaverInit {
  key: { encrypt: Uint8Array; macK: Uint8Array; macR: Uint8Array };
  polynomial: bigint;
  version: number;
  compression: CompressionMode;
  packSize?: number;
  /** Opened by the saver itself: directory handles and S3 settings are cloneable. */
  location: RepoLocation;
  uploads: number;
  /** Pack buffers at most (PackerManager `buffers`); undefined: no limit beyond `uploads`. */
  packBuffers?: number;
  /** Files saved at once. */
  parallel: number;
  /** The SHA-256 implementation the engine chose, so each saver need not time both again; unset: the saver times them. */
  sha256?: Sha256Choice;
  /** The AES implementation the engine chose, likewise; unset or 'auto': the saver times them. */
  aes?: 'auto' | 'webcrypto' | 'wasm';
  /** A port to the page's server of a webkitdirectory list's Files (../source/file-server.ts). */
  files?: MessagePort;
  /** Note each pack in this journal before storing it (../engine/pack-journal.ts). */
  journal?: { repo: string; engine: number };
}

export type ToWorker = ToSaver | { type: 'init'; init: SaverInit };

export type FromWorker = FromSaver | { type: 'ready' } | { type: 'initError'; error: SerializedError };
