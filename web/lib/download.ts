// Starts a streamed download — workers/client/download.ts hands the engine's stream to the
// service worker and opens its URL — and resolves with what the engine reports once the last
// byte went out (files restored, files that failed).

import type { DownloadKind, ProgressSnapshot, RestoreResultView, SelectionRequest } from '../../workers/api';
import { startDownload as streamDownload, startSelectionDownload as streamSelection } from '../../workers/client/download';
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

/** One ZIP of several ticked items of a folder, streamed the same way. */
export async function startSelectionDownload(req: SelectionRequest, onProgress: (p: ProgressSnapshot) => void): Promise<RestoreResultView> {
  return (await streamSelection(engine(), req, onProgress)).result;
}
