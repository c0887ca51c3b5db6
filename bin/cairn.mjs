#!/usr/bin/env node
// The `cairn` command: runs the bundled CLI (built by `npm run build:cli`, also on install).
import '../dist/cli/cairn.mjs';
