// A file-saver Web Worker: opens the repository's backend itself, reads the files it is
// given (File or FileSystemFileHandle), and runs the engine's FileSaver behind core's saver
// protocol — chunk, hash, claim new blobs, compress, seal, pack, upload.

/// <reference lib="webworker" />
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver } from '../../core/archiver/file-saver';
import { saverEndpoint, type ToSaver } from '../../core/archiver/saver-protocol';
import { PackerManager } from '../../core/repository/packer-manager';
import { initWasm } from '../wasm';
import { chooseSha256 } from '../sha256-choice';
import { chooseAes } from '../aes-choice';
import { openBackend } from '../location';
import { browserFileReader } from '../source/file-reader';
import type { FromWorker, SaverInit, ToWorker } from './messages';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (m: FromWorker) => scope.postMessage(m);

let handle: ((m: ToSaver) => void) | undefined;

async function start(init: SaverInit): Promise<void> {
  await Promise.all([initWasm(), chooseSha256(init.sha256)]);
  await chooseAes(init.aes);
  const backend = await openBackend(init.location);
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  const packs = new PackerManager({ key, saver: backend, packSize: init.packSize, uploads: init.uploads, buffers: init.packBuffers, onPackSaved: (pack, size) => post({ type: 'packSaved', pack, size }) });
  handle = saverEndpoint({
    post,
    packs,
    parallel: init.parallel,
    makeSaver: (claim) => new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: browserFileReader, claim }),
  });
}

scope.onmessage = (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === 'init') {
    start(m.init).then(
      () => post({ type: 'ready' }),
      (e) => post({ type: 'initError', error: serializeError(e) }),
    );
  } else handle?.(m);
};
