// What only the repository tools' heavy operations need (check's pack reading on the decode
// workers, several items zipped or restored): loaded by the engine (./lazy.ts) on first use.

export { runCheck } from './check';
export { restoreSelection, selectionProducer } from './selection';
export { startDownload } from './download';
