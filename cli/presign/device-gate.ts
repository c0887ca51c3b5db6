// Before a command that goes through a presign endpoint starts, ask the endpoint which device
// this is and refuse at once (NOT_PERMITTED) what its role does not allow, so that nothing is
// half done: an append-only laptop's `forget` stops before it removes anything, its `prune`
// before it writes a single repacked pack. A read-only device takes no locks (it cannot write them).

import { CairnError } from '../../core/errors';
import { deviceInfo, requireAccess, type Access, type DeviceInfo } from '../../core/presign';
import { parseS3Location } from '../../core/backend/s3';
import type { Parsed } from '../args';
import type { GlobalOptions } from '../global';

/** What a command line needs; `--dry-run` of forget, prune and rewrite changes nothing. */
function commandAccess(command: string, line: Parsed): Access {
  const dryRun = line.flags['dry-run'] === true;
  switch (command) {
    case 'forget':
    case 'prune':
    case 'rewrite':
    case 'tag':
      return dryRun ? 'write' : 'maintenance';
    case 'repair':
      return 'maintenance';
    case 'key':
      return line.args[0] === 'list' ? 'read' : 'maintenance';
    case 'init':
    case 'backup':
    case 'unlock':
    case 'copy':
      return 'write';
    default:
      return 'read';
  }
}

/** Checks the device's role against the command, and the endpoint's prefix against the repository's. */
export async function checkDevice(command: string, line: Parsed, globals: GlobalOptions, signal?: AbortSignal): Promise<DeviceInfo | undefined> {
  if (!globals.presign) return undefined;
  const info = await deviceInfo(globals.presign.endpoint, globals.presign.token, undefined, signal);
  const prefix = globals.repo?.startsWith('s3:') ? parseS3Location(globals.repo).prefix : undefined;
  if (prefix !== undefined && prefix !== info.prefix)
    throw new CairnError('USAGE', `the presign endpoint serves the repository prefix "${info.prefix}", but the repository names "${prefix}"`);
  requireAccess(info, commandAccess(command, line), `cairn ${command}${command === 'key' && line.args[0] ? ' ' + line.args[0] : ''}`);
  if (info.role === 'read') globals.noLock = true;
  return info;
}
