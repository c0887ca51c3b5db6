// The recovery sheet: the master key as restic's `cat masterkey` prints it, given to the page
// only once the password typed again opens this repository. The page prints it and stores it
// nowhere (web/components/RecoverySheet.svelte).

import { GoTime } from '../../core/data/go-time';
import type { RecoverySheetView } from '../tools-api';
import { describeLocation } from '../location';
import { verifyPassword } from './keys';
import type { Session } from './session';

export async function recoverySheet(s: Session, password: string): Promise<RecoverySheetView> {
  await verifyPassword(s, password);
  const json = s.repo.key.toJSON();
  return {
    masterKey: JSON.stringify(json, null, 2) + '\n',
    masterKeyCompact: JSON.stringify(json),
    repoId: s.repo.config.id,
    location: describeLocation(s.loc),
    made: GoTime.fromDate(new Date()).format(),
  };
}
