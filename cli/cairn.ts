// Entry point of the bundled CLI (dist/cli/cairn.mjs).
import { main } from './main';

// A reader that goes away (`cairn ls latest | head`) stops the command the way an interrupt
// does — its lock released, no stack trace — where restic dies of SIGPIPE. Writes after that
// are dropped.
let pipeClosed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    if (pipeClosed) return;
    pipeClosed = true;
    process.kill(process.pid, 'SIGTERM');
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // The command is over: a request it abandoned (an interrupt, a server that hangs) must not
    // keep the process alive. Does not fire when nothing else is pending.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (e) => {
    if (!pipeClosed) process.stderr.write(`INTERNAL: ${(e as Error)?.message ?? e}\n`);
    process.exitCode = 1;
  },
);
