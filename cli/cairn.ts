// Entry point of the bundled CLI (dist/cli/cairn.mjs).
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`INTERNAL: ${(e as Error)?.message ?? e}\n`);
    process.exitCode = 1;
  },
);
