// Using the engine in-process from tests: Node's primitives and zstd, a repository opened
// on a local directory with the test password.

import { installNodePrimitives } from '../../cli/adapters/node-primitives';
import { initZstdNode } from '../../cli/adapters/zstd-node';
import { LocalBackend } from '../../cli/adapters/local-backend';
import { Repository } from '../../core/repository/repository';
import { TEST_ENV } from './cli';

export async function initEngine(): Promise<void> {
  installNodePrimitives();
  await initZstdNode();
}

export async function openLocal(dir: string, password = TEST_ENV.RESTIC_PASSWORD): Promise<Repository> {
  await initEngine();
  return Repository.open(await LocalBackend.open(dir), password);
}
