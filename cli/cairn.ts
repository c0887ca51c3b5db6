// Entry point of the bundled CLI (dist/cli/cairn.mjs).
import { main } from './main';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // The command is over: a request it abandoned (an interrupt, a server that hangs) must not
    // keep the process alive. Does not fire when nothing else is pending.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (e) => {
    process.stderr.write(`INTERNAL: ${(e as Error)?.message ?? e}\n`);
    process.exitCode = 1;
  },
);
