// The page entry, kept small: it starts the engine worker and, for a repository that stays
// unlocked, the unlock and the kept listing (./lib/boot.ts, drawn by ./lib/early-listing.ts)
// before the UI's much larger bundle (./ui.ts: Svelte and the components) has even loaded.
// Nothing heavy runs on this thread: the engine lives in workers/.

import { bootEngine, uiMayLoad } from './lib/boot';
import './styles.css';

performance.mark('cairn:preboot');
bootEngine();
// The UI's bundle takes this thread for ~100 ms or more: after the first picture, if any.
void uiMayLoad().then(() => import('./ui'));
