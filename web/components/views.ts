// Views the app does not need to draw its first screen (the snapshot list, a folder of a
// snapshot, the overview or the repository screen) load on first use, so the UI's bundle —
// on the warm start's critical path — stays small; after start-up they are fetched in the
// background, so a click later does not wait for them.

export const views = {
  backup: () => import('./BackupPanel.svelte'),
  plans: () => import('./PlansView.svelte'),
  plan: () => import('./PlanEditor.svelte'),
  history: () => import('./HistoryView.svelte'),
  settings: () => import('./SettingsView.svelte'),
  search: () => import('./SearchView.svelte'),
  versions: () => import('./VersionsView.svelte'),
  diff: () => import('./DiffView.svelte'),
  chart: () => import('./SizeChart.svelte'),
};

/** Fetches every lazy view once the page is idle. */
export function preloadViews(): void {
  const go = () => Object.values(views).forEach((load) => void load().catch(() => {}));
  if (typeof requestIdleCallback === 'function') requestIdleCallback(go, { timeout: 3000 });
  else setTimeout(go, 1000);
}
