// The warm start's first picture, drawn before the UI has loaded. When a listing was kept for
// the folder the page opens on (./boot.ts), this draws it with plain DOM, without waiting for Svelte and the components (the UI bundle takes ~100 ms or more of
// this thread to run and mount on a slow machine). It is a picture only: no links, no
// buttons. It goes as soon as the UI shows any listing of its own, or drops the kept one
// (another repository, a failed unlock), or the route changes.

import type { SnapshotView } from '../../workers/api';
import type { LastView } from '../../workers/client/last-view';
import { formatBytes, formatNodeTime, formatTime, joinPath, plural } from './format';

let shown: HTMLElement | undefined;
let dropped = false;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Draws `v` above the (not yet mounted) app, unless the UI already took over. */
export function showEarlyListing(v: LastView): void {
  if (dropped || shown || v.entries.length === 0) return;
  const short = v.snapshot.id.slice(0, 8);
  const main = el('main', { class: 'early-listing', 'aria-busy': 'true' });
  const section = main.appendChild(el('section', { 'aria-labelledby': 'early-heading' }));
  section.appendChild(el('p', { class: 'hint' }, ['Snapshots', short, ...v.path].join(' › ')));
  section.appendChild(el('h2', { id: 'early-heading' }, v.path.at(-1) ?? `snapshot ${short}`));
  section.appendChild(el('p', { class: 'hint' }, `${formatTime(v.snapshot.time)} · ${v.snapshot.hostname} · ${v.snapshot.paths.join(', ')}`));
  const table = section.appendChild(el('table', { class: 'list', 'data-testid': 'tree-list', 'aria-describedby': 'early-heading' }));
  const head = table.appendChild(el('thead')).appendChild(el('tr'));
  head.append(el('th', { scope: 'col' }, 'Name'), el('th', { scope: 'col', class: 'num' }, 'Size'), el('th', { scope: 'col' }, 'Modified'));
  const body = table.appendChild(el('tbody'));
  for (const n of v.entries) {
    const row = body.appendChild(el('tr', { 'data-name': n.name }));
    row.append(
      el('td', { 'data-label': 'Name', class: n.type === 'dir' ? 'dir' : 'file' }, n.type === 'dir' ? `${n.name}/` : n.name),
      el('td', { 'data-label': 'Size', class: 'num' }, n.type === 'file' ? formatBytes(n.size) : ''),
      el('td', { 'data-label': 'Modified' }, formatNodeTime(n.mtime)),
    );
  }
  section.appendChild(el('p', { class: 'hint path-line' }, `${joinPath(v.path)} · ${plural(v.entries.length, 'entry', 'entries')}`));
  document.getElementById('app')?.before(main);
  shown = main;
  addEventListener('hashchange', dropEarlyListing, { once: true });
  performance.mark('cairn:early-listing-shown');
  performance.mark('cairn:listing-shown');
  performance.mark('cairn:kept-listing-shown');
}

/** Draws the kept snapshot list (oldest first, shown newest first), as ../components/SnapshotList.svelte does. */
export function showEarlySnapshotList(list: SnapshotView[]): void {
  if (dropped || shown || list.length === 0) return;
  const main = el('main', { class: 'early-listing', 'aria-busy': 'true' });
  const section = main.appendChild(el('section', { 'aria-labelledby': 'early-heading' }));
  section.appendChild(el('h2', { id: 'early-heading' }, 'Snapshots'));
  const table = section.appendChild(el('table', { class: 'list', 'data-testid': 'snapshot-list' }));
  const head = table.appendChild(el('thead')).appendChild(el('tr'));
  for (const h of ['ID', 'Time', 'Host', 'Tags', 'Paths']) head.append(el('th', { scope: 'col' }, h));
  head.append(el('th', { scope: 'col', class: 'num' }, 'Size'));
  const body = table.appendChild(el('tbody'));
  for (const s of [...list].reverse()) {
    const row = body.appendChild(el('tr', { 'data-snapshot': s.id }));
    row.append(
      el('td', { 'data-label': 'ID', class: 'mono' }, s.shortId),
      el('td', { 'data-label': 'Time' }, formatTime(s.time)),
      el('td', { 'data-label': 'Host' }, s.hostname),
      el('td', { 'data-label': 'Tags' }, s.tags.join(', ')),
      el('td', { 'data-label': 'Paths', class: 'mono' }, s.paths.join('\n')),
      el('td', { 'data-label': 'Size', class: 'num' }, s.size !== undefined ? formatBytes(s.size) : ''),
    );
  }
  section.appendChild(el('p', { class: 'hint' }, plural(list.length, 'snapshot', 'snapshots')));
  document.getElementById('app')?.before(main);
  shown = main;
  addEventListener('hashchange', dropEarlyListing, { once: true });
  performance.mark('cairn:early-list-shown');
  performance.mark('cairn:snapshot-list-shown');
}

/** Takes the picture away for good (the UI shows its own listing, or none should show). */
export function dropEarlyListing(): void {
  dropped = true;
  shown?.remove();
  shown = undefined;
}
