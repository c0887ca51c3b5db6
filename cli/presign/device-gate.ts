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
function commandAccess(command: string, p: Parsed): Access {
  const dryRun = p.flags['dry-run'] === true;
  switch (command) {
    case 'forget':
    case 'prune':
    case 'rewrite':
    case 'tag':
      return dryRun ? 'write' : 'maintenance';
    case 'repair':
      return 'maintenance';
    case 'key':
      return p.args[0] === 'list' ? 'read' : 'maintenance';
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
export async function checkDevice(command: string, p: Parsed, g: GlobalOptions, signal?: AbortSignal): Promise<DeviceInfo | undefined> {
  if (!g.presign) return undefined;
  const info = await deviceInfo(g.presign.endpoint, g.presign.token, undefined, signal);
  const prefix = g.repo?.startsWith('s3:') ? parseS3Location(g.repo).prefix : undefined;
  if (prefix !== undefined && prefix !== info.prefix)
    throw new CairnError('USAGE', `the presign endpoint serves the repository prefix "${info.prefix}", but the repository names "${prefix}"`);
  requireAccess(info, commandAccess(command, p), `cairn ${command}${command === 'key' && p.args[0] ? ' ' + p.args[0] : ''}`);
  if (info.role === 'read') g.noLock = true;
  return info;
}
