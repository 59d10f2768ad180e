// @worker-thread-only (test/layering.test.ts: never imported by code on the host's loop)
// The shell parser's thread: loads mvdan-sh (a 1.5 MB GopherJS bundle, ~100 ms to load)
// and parses commands here, so neither the load nor a slow parse can stall the extension
// host. shell-parser.ts is the host side (docs/permissions.md).
import { parentPort } from 'node:worker_threads';
import { analyzeShell } from './shell-parts';
import type { ShellReply, ShellRequest } from './shell-parser';

parentPort?.on('message', (req: ShellRequest) => {
  let reply: ShellReply;
  try {
    reply = { id: req.id, analysis: analyzeShell(req.command) };
  } catch (e) {
    const msg = `the command could not be parsed (${e instanceof Error ? e.message : String(e)})`;
    reply = { id: req.id, analysis: { parts: [], inner: [], unknown: [], hazards: [msg], error: msg } };
  }
  parentPort?.postMessage(reply);
});
