// What only backups, restores and downloads need (the file-saver pool, the SHA-256 and AES
// choices with hash-wasm, the restorer, ZIP writing). engine.worker.ts imports this lazily, so
// the module a warm start evaluates before it can unlock and list stays small.

export { backup } from './backup';
export { downloadResult, startDownload } from './download';
export { producer, restoreToFolder, saveToFile } from './restore';
export { chooseSha256 } from '../sha256-choice';
export { chooseAes } from '../aes-choice';
export { dropStandingSavers, saverWorkerCount, standBySavers } from '../pool/browser-pool';
