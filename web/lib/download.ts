// Starts a streamed download — workers/client/download.ts hands the engine's stream to the
// service worker and opens its URL — and resolves with what the engine reports once the last
// byte went out (files restored, files that failed).

import type { DownloadKind, ProgressSnapshot, RestoreResultView } from '../../workers/api';
import { startDownload as streamDownload } from '../../workers/client/download';
import { engine } from './engine';

export async function startDownload(
  snapshotId: string,
  path: string[],
  kind: DownloadKind,
  onProgress: (p: ProgressSnapshot) => void,
): Promise<RestoreResultView> {
  const started = await streamDownload(engine(), snapshotId, path, kind, onProgress);
  return started.result;
}
