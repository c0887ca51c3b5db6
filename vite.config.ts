// The app build: Svelte 5 UI (web/), comlink workers as ES modules (workers/), and the workbox
// service worker (sw/sw.ts, injectManifest) that precaches the shell and the WASM so the app
// opens offline. Output goes to dist/app (dist/cli belongs to the CLI build).
//
// CAIRN_TEST_HOOKS=1 builds the e2e variant into dist/app-e2e: identical except that
// `__CAIRN_TEST_HOOKS__` is true, which lets Playwright inject OPFS directory handles where a
// real user would see showDirectoryPicker() (headless Chromium cannot drive that dialog).
// It also carries the tests' cheap scrypt parameters (__CAIRN_KDF_FOR_TESTS__, from
// test/helpers/test-kdf.json) for the keys the e2e specs create; null otherwise.
// Normal builds compile the hooks away entirely. `__CAIRN_TUNING__` (the engine's tuning knobs,
// workers/api.ts TuningApi) is false in both: only the engine harness and the benchmarks set it.

import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { VitePWA } from 'vite-plugin-pwa';
import { contentSecurityPolicy, securityHeaders } from './web/csp';
import testKdf from './test/helpers/test-kdf.json';

const testHooks = process.env['CAIRN_TEST_HOOKS'] === '1';

export default defineConfig({
  root: '.',
  publicDir: 'public',
  // The engine's tuning knobs (workers/api.ts TuningApi) are for the harness and the benchmarks only.
  define: { __CAIRN_TEST_HOOKS__: JSON.stringify(testHooks), __CAIRN_KDF_FOR_TESTS__: testHooks ? JSON.stringify(testKdf) : 'null', __CAIRN_TUNING__: 'false' },
  build: {
    outDir: testHooks ? 'dist/app-e2e' : 'dist/app',
    emptyOutDir: true,
    target: 'es2022',
    // WASM must stay a separate file: inlining it as a data: URL would need a looser CSP.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
    sourcemap: true,
  },
  worker: { format: 'es' },
  server: { headers: { ...securityHeaders, 'Content-Security-Policy': contentSecurityPolicy({ dev: true }) } },
  preview: { headers: { ...securityHeaders, 'Content-Security-Policy': contentSecurityPolicy() } },
  plugins: [
    {
      // index.html carries `<meta http-equiv="Content-Security-Policy" content="%CAIRN_CSP%">`.
      name: 'cairn-csp-meta',
      transformIndexHtml: {
        order: 'pre',
        handler: (html, ctx) => html.replace('%CAIRN_CSP%', contentSecurityPolicy({ meta: true, dev: !!ctx.server })),
      },
    },
    {
      // web/main.ts loads the UI (web/ui.ts) with a dynamic import, after starting the engine;
      // a modulepreload link lets the browser fetch that chunk alongside the entry instead.
      name: 'cairn-preload-ui',
      apply: 'build',
      transformIndexHtml: {
        order: 'post',
        handler(html, ctx) {
          const ui = Object.values(ctx.bundle ?? {}).find((c) => c.type === 'chunk' && c.facadeModuleId?.endsWith('/web/ui.ts'));
          return ui ? [{ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: '', href: `/${ui.fileName}` }, injectTo: 'head' }] : html;
        },
      },
    },
    svelte(),
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      injectRegister: false, // web/lib/service-worker.ts registers it with workbox-window
      manifestFilename: 'manifest.webmanifest',
      injectManifest: {
        // The app shell, the worker chunks and the WASM: everything needed to unlock and browse offline.
        globPatterns: ['**/*.{html,js,css,wasm,svg,png,webmanifest}'],
        maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
      },
      devOptions: { enabled: false },
      manifest: {
        name: 'Cairn — encrypted backups',
        short_name: 'Cairn',
        description: 'Back up folders from your browser, encrypted, in restic’s repository format.',
        start_url: '.',
        scope: '.',
        display: 'standalone',
        background_color: '#f6f4ef',
        theme_color: '#2f4f4f',
        icons: [
          { src: 'icons/cairn.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
          { src: 'icons/cairn-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: 'icons/cairn-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: 'icons/cairn-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
    }),
  ],
});
