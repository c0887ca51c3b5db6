// The UI: mounts the Svelte app and registers the service worker. Loaded by ./main.ts once the
// engine is on its way.

import { mount } from 'svelte';
import App from './components/App.svelte';
import { registerServiceWorker } from './lib/service-worker';
import { app } from './state/app.svelte';

performance.mark('cairn:main');
mount(App, { target: document.getElementById('app')! });
void registerServiceWorker({ onUpdateReady: (activate) => app.offerUpdate(activate) });
