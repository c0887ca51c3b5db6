// The recovery sheet: the master key shown once the password is typed again, held in this
// object's memory only while the sheet is on screen (never in IndexedDB, OPFS or
// localStorage), and dropped when the sheet is closed or the repository locked.

import type { RecoverySheetView } from '../../workers/api';
import { engine } from '../lib/engine';
import { describeError, type Described } from '../lib/messages';

class RecoverySheet {
  #sheet = $state.raw<RecoverySheetView | undefined>();
  #busy = $state(false);
  #error = $state.raw<Described | undefined>();

  get sheet(): RecoverySheetView | undefined {
    return this.#sheet;
  }
  get busy(): boolean {
    return this.#busy;
  }
  get error(): Described | undefined {
    return this.#error;
  }

  async reveal(password: string): Promise<boolean> {
    this.#busy = true;
    this.#error = undefined;
    try {
      this.#sheet = await engine().recoverySheet(password);
      return true;
    } catch (e) {
      this.#error = describeError(e);
      return false;
    } finally {
      this.#busy = false;
    }
  }

  hide(): void {
    this.#sheet = undefined;
    this.#error = undefined;
  }
}

export const recoverySheet = new RecoverySheet();
