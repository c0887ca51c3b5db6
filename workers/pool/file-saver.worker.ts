// A file-saver Web Worker: opens the repository's backend itself, reads the files it is
// given (File or FileSystemFileHandle), and runs the engine's FileSaver behind core's saver
// protocol — chunk, hash, claim new blobs, compress, seal, pack, upload.

/// <reference lib="webworker" />
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver } from '../../core/archiver/file-saver';
import { saverEndpoint } from '../../core/archiver/saver-endpoint';
import type { ToSaver } from '../../core/archiver/saver-protocol';
import { PackerManager } from '../../core/repository/packer-manager';
import { journaledSaver } from '../../core/repository/adopt';
import { packJournal } from '../engine/pack-journal';
import { initWasm } from '../wasm';
import { chooseSha256 } from '../sha256-choice';
import { chooseAes } from '../aes-choice';
import { openBackend } from '../location';
import { browserFileReader, useFileServer } from '../source/file-reader';
import { fileClient, isServedRef, type FileClient } from '../source/file-server';
import type { FromWorker, SaverInit, ToWorker } from './messages';
import { engineChannel, type WorkerChannel } from '../worker-port';

// zstd loads as soon as the script runs: a saver is started ahead of its backup (spawnSavers
// in browser-pool.ts) and gets its settings only when the backup first needs it.
void initWasm().catch(() => {}); // a failure is seen again by start()

let channel: WorkerChannel | undefined;
const post = (m: FromWorker) => channel!.post(m);

let handle: ((m: ToSaver) => void) | undefined;
/** The page's webkitdirectory list, when that is what this backup reads. */
let files: FileClient | undefined;

async function start(init: SaverInit): Promise<void> {
  await Promise.all([initWasm(), chooseSha256(init.sha256)]);
  await chooseAes(init.aes);
  if (init.files) {
    files = fileClient(init.files);
    useFileServer(files.get);
  }
  const backend = await openBackend(init.location);
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  const saver = init.journal ? journaledSaver(backend, packJournal(init.journal.repo, init.journal.engine)) : backend;
  const packs = new PackerManager({
    key,
    saver,
    packSize: init.packSize,
    uploads: init.uploads,
    buffers: init.packBuffers,
    onPackSaved: (pack, size) => post({ type: 'packSaved', id: pack.id, header: pack.entries.trimmed(), size }),
  });
  handle = saverEndpoint({
    post,
    packs,
    parallel: init.parallel,
    makeSaver: (claim) =>
      new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: browserFileReader, claim }),
  });
}

channel = engineChannel((ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  if (m.type === 'init') {
    start(m.init).then(
      () => post({ type: 'ready' }),
      (e) => post({ type: 'initError', error: serializeError(e) }),
    );
  } else {
    // Queued jobs' Files are asked for as the jobs arrive, not when each starts.
    if (m.type === 'jobs' && files) files.fetchAhead(m.jobs.flatMap((j) => (isServedRef(j.job.ref) ? [j.job.ref.served] : [])));
    handle?.(m);
  }
});
