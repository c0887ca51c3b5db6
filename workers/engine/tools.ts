// The repository tools' half of the engine worker's API (../tools-api.ts): engine.worker.ts
// spreads these methods into its `api`, handing over what they share with the rest of it — the
// open session, the one-long-operation rule, the owner, and opening a new session. Check and
// the selection's ZIP and restore are loaded on first use, like the other heavy code.

import * as Comlink from 'comlink';
import type { ProgressSnapshot } from '../../core/progress';
import type { OpenOptions, RepoInfo, RepoLocation } from '../api';
import type {
  CheckShare,
  ForgetRequest,
  NewKeyOptions,
  PolicyInput,
  RepositoryToolsApi,
  RestorePatterns,
  RetentionScope,
  SelectionRequest,
} from '../tools-api';
import { guarded } from '../errors';
import { addRepositoryKey, changePassword, listKeys, removeRepositoryKey } from './keys';
import { recoverWithMasterKey, type Owner } from './open';
import { recoverySheet } from './recovery';
import { forget, previewForget } from './retention';
import { freeSpace } from './free-space';
import type { Session } from './session';

export interface ToolsHost {
  current(): Session;
  exclusive<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T>;
  owner(): Promise<Owner>;
  /** Makes `next` the open session (closing the old one) and returns it. */
  replace(next: Promise<Session>): Promise<Session>;
  /** Aborted when the repository is closed (downloads run beside other work). */
  closeSignal(): AbortSignal;
}

const heavyTools = () => import('./heavy-tools');

export function repositoryTools(host: ToolsHost): RepositoryToolsApi {
  const { current, exclusive, owner } = host;
  return {
    checkRepository: (share: CheckShare, onProgress?: (p: ProgressSnapshot) => void) =>
      guarded(() => exclusive('a check', async (signal) => (await heavyTools()).runCheck(current(), share, await owner(), signal, onProgress))),

    listKeys: () => guarded(() => listKeys(current())),
    addKey: (password: string, opts?: NewKeyOptions) => guarded(async () => addRepositoryKey(current(), password, await owner(), opts)),
    changePassword: (currentPassword: string, next: string) => guarded(async () => changePassword(current(), currentPassword, next, await owner())),
    removeKey: (id: string, opts?: { allowCurrent?: boolean }) => guarded(async () => removeRepositoryKey(current(), id, await owner(), opts)),
    recoverySheet: (password: string) => guarded(() => recoverySheet(current(), password)),
    recoverAccess: (loc: RepoLocation, masterKey: string, password: string, opts?: OpenOptions): Promise<RepoInfo> =>
      guarded(async () => (await host.replace(recoverWithMasterKey(loc, masterKey, password, await owner(), opts))).info()),

    downloadSelection: (req: SelectionRequest, onProgress?: (p: ProgressSnapshot) => void) =>
      guarded(async () => {
        const t = await heavyTools();
        const ticket = t.startDownload(await t.selectionProducer(current(), req), host.closeSignal(), onProgress);
        return Comlink.transfer(ticket, [ticket.port]);
      }),
    restoreSelection: (req: SelectionRequest, target: FileSystemDirectoryHandle, patterns?: RestorePatterns, onProgress?: (p: ProgressSnapshot) => void) =>
      guarded(() =>
        exclusive('a restore', async (signal) => (await heavyTools()).restoreSelection(current(), req, target, patterns ?? {}, signal, onProgress)),
      ),

    previewForget: (policy: PolicyInput, opts?: RetentionScope & { withPrune?: boolean }) =>
      guarded(async () => previewForget(current(), policy, await owner(), opts)),
    forget: (req: ForgetRequest, onProgress?: (p: ProgressSnapshot) => void) =>
      guarded(() => exclusive('removing snapshots', async (signal) => forget(current(), req, await owner(), signal, onProgress))),
    hasPrune: async () => freeSpace !== undefined,
  };
}
