// Last-resort cleanup for e2e resources (server process groups, temp dirs) when a test
// process ends without reaching its `after` hooks: normal exit, SIGINT or SIGTERM (node:test
// sends SIGTERM to a file that times out). Handlers must be synchronous.

type SyncCleanup = () => void;

const pending = new Set<SyncCleanup>();
let installed = false;

// Newest first, like nested finally blocks: a server's processes die before its dirs go.
function runAll(): void {
  for (const fn of [...pending].reverse()) {
    pending.delete(fn);
    try { fn(); } catch { /* best effort: the process is going away */ }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runAll);
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => { runAll(); process.exit(code); });
  }
}

/** Registers `fn` to run if the process exits first; call the returned function once done. */
export function onExitCleanup(fn: SyncCleanup): () => void {
  install();
  pending.add(fn);
  return () => { pending.delete(fn); };
}
