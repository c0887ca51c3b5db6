// A worker thread that saves files: it opens the backend itself, reads each file by path,
// and runs the engine's FileSaver behind core's saver protocol.

import { parentPort, workerData } from 'node:worker_threads';
import { serializeError } from '../../core/errors';
import { Key } from '../../core/crypto/keys';
import { FileSaver } from '../../core/archiver/file-saver';
import { saverEndpoint } from '../../core/archiver/saver-endpoint';
import type { ToSaver } from '../../core/archiver/saver-protocol';
import { PackerManager } from '../../core/repository/packer-manager';
import { installNodePrimitives } from '../adapters/node-primitives';
import { initZstdNode } from '../adapters/zstd-node';
import { nodeFileReader } from '../adapters/node-source';
import { openBackend } from '../location';
import { dryRunBackend } from '../backup/dry-run';
import { fileJournal } from '../backup/journal';
import { journaledSaver } from '../../core/repository/adopt';
import type { FromWorker, WorkerInit } from './messages';

const port = parentPort!;
const post = (m: FromWorker) => port.postMessage(m);

async function main(init: WorkerInit): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
  const backend = await openBackend(init.backend);
  const key = new Key(init.key.encrypt, init.key.macK, init.key.macR);
  const packs = new PackerManager({
    key,
    saver: init.dryRun ? dryRunBackend(backend) : init.journal ? journaledSaver(backend, fileJournal(init.journal)) : backend,
    packSize: init.packSize,
    uploads: init.uploads,
    onPackSaved: (pack, size) => post({ type: 'packSaved', id: pack.id, header: pack.entries.trimmed(), size }),
  });
  const handle = saverEndpoint({
    post,
    packs,
    parallel: init.parallel,
    makeSaver: (claim) =>
      new FileSaver({ key, polynomial: init.polynomial, version: init.version, compression: init.compression, packs, reader: nodeFileReader, claim }),
    later: (f) => void setImmediate(f),
  });
  port.on('message', (m: ToSaver | { type: 'close' }) => {
    if (m.type === 'close') void backend.close().finally(() => process.exit(0));
    else handle(m);
  });
  post({ type: 'ready' });
}

main(workerData as WorkerInit).catch((e) => post({ type: 'initError', error: serializeError(e) }));
