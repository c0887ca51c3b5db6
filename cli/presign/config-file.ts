// The endpoint's configuration file for `cairn presign …`: read and validated by core/presign's
// parsePresignConfig, written atomically (a temporary file renamed over it, mode 0600), and
// watched cheaply: `fileDevices` re-reads the devices whenever the file was replaced, so a
// `token revoke` takes effect on the next request of a running server.

import fs from 'node:fs';
import path from 'node:path';
import { CairnError } from '../../core/errors';
import { parsePresignConfig, type Device, type PresignFileConfig } from '../../core/presign';

export function configPath(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const p = flag ?? env['CAIRN_PRESIGN_CONFIG'];
  if (!p) throw new CairnError('USAGE', 'name the endpoint configuration with --config FILE or CAIRN_PRESIGN_CONFIG');
  return p;
}

export function readConfig(file: string): PresignFileConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CairnError('USAGE', `cannot read presign config ${file}: ${(e as Error).message}`, { cause: e });
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new CairnError('USAGE', `presign config ${file} is not JSON: ${(e as Error).message}`, { cause: e });
  }
  return parsePresignConfig(doc);
}

export function writeConfig(file: string, config: PresignFileConfig): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The devices of the file as it is now; re-read only when the file was changed or replaced. */
export function fileDevices(file: string): () => readonly Device[] {
  let seen = '';
  let devices: readonly Device[] = [];
  return () => {
    const st = fs.statSync(file);
    const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    if (stamp !== seen) {
      devices = readConfig(file).devices; // a broken file throws: the endpoint fails closed
      seen = stamp;
    }
    return devices;
  };
}
