// The page entry: mounts the Svelte app and registers the service worker. Nothing heavy runs
// here — the engine lives in workers/ and is started by web/lib/engine.ts.

import { bootEngine } from './lib/boot';
import { mount } from 'svelte';
import App from './components/App.svelte';
import { registerServiceWorker } from './lib/service-worker';
import { app } from './state/app.svelte';
import './styles.css';

performance.mark('cairn:main');
bootEngine();
mount(App, { target: document.getElementById('app')! });
void registerServiceWorker({ onUpdateReady: (activate) => app.offerUpdate(activate) });
