// Starts a streamed download through the service worker (workers/client/download.ts does the
// hand-over of the engine's stream to the service worker) and resolves with what the engine
// reports once the stream has ended.

import * as Comlink from 'comlink';
import type { DownloadKind, ProgressSnapshot, RestoreResultView } from '../../workers/api';
import { startDownload as handOver } from '../../workers/client/download';
import { engine } from './engine';

export async function startDownload(
  snapshotId: string,
  path: string[],
  kind: DownloadKind,
  onProgress: ((p: ProgressSnapshot) => void) & Comlink.ProxyMarked,
): Promise<RestoreResultView> {
  const e = engine();
  const ticket = await e.download(snapshotId, path, kind, onProgress);
  await handOver(ticket);
  return e.downloadResult(ticket.id);
}
