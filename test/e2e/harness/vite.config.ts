// Builds the engine harness page (./index.html) with the real engine worker and service worker,
// served by `vite preview` under the app's Content-Security-Policy. Only the engine e2e specs
// use it (./playwright.config.ts); the app's own build never includes it.

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { contentSecurityPolicy, securityHeaders } from '../../../web/csp';
import testKdf from '../../helpers/test-kdf.json';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('../../../', import.meta.url));

export default defineConfig({
  root: here,
  publicDir: false,
  // The e2e builds' test hooks (vite.config.ts): here, the cheap KDF for the many repositories
  // the specs create; and the engine's tuning knobs (workers/api.ts TuningApi).
  define: { __CAIRN_TEST_HOOKS__: 'true', __CAIRN_KDF_FOR_TESTS__: JSON.stringify(testKdf), __CAIRN_TUNING__: 'true' },
  build: {
    outDir: `${repo}dist/harness`,
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
    sourcemap: true,
    // CAIRN_HARNESS_MINIFY=0 keeps function names readable in CPU profiles.
    minify: process.env['CAIRN_HARNESS_MINIFY'] !== '0',
  },
  worker: { format: 'es' },
  preview: { headers: { ...securityHeaders, 'Content-Security-Policy': contentSecurityPolicy() } },
  plugins: [
    VitePWA({
      strategies: 'injectManifest',
      srcDir: `${repo}sw`,
      filename: 'sw.ts',
      injectRegister: false,
      manifest: false,
      injectManifest: { globPatterns: ['**/*.{html,js,css,wasm}'], maximumFileSizeToCacheInBytes: 8 * 1024 * 1024 },
      devOptions: { enabled: false },
    }),
  ],
});
