// Standalone fake API for tests that drive another process (e2e: the extension host talks to it).
//   node out/test/fake-api/main.js [--port N] [--script file.json] [--api-key K] [--models a,b] [--agent-pattern RE]
// Prints {"port":N} on stdout once listening, logs to stderr, exits on SIGTERM/SIGINT.
// Script it by rewriting the --script file (re-read when its mtime changes; write it atomically)
// or through the control endpoints documented in server.ts (POST /_control/script, …).
import { startFakeApi } from './server';
import { regexMatcher } from './script';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const pattern = flag('agent-pattern');
  const api = await startFakeApi({
    port: Number(flag('port') ?? 0),
    scriptFile: flag('script'),
    apiKey: flag('api-key'),
    knownModels: flag('models')?.split(',').filter(Boolean),
    identify: pattern ? regexMatcher(pattern) : undefined,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ port: api.port })}\n`);
  const stop = () => { void api.close().then(() => process.exit(0)); };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((e: Error) => {
  process.stderr.write(`fake-api: ${e.message}\n`);
  process.exit(1);
});
