// The offline replacement for @vscode/test-electron's runTests: runs an extension-tests module
// (exporting `run()`) inside code-server's real extension host, with the full vscode API.
// code-server started with --vscode-option enable-smoke-test-driver accepts VS Code's
// development options through the `payload` URL parameter, and reports the result by calling
// window.codeAutomationExit(code) in the page.
import { resolve } from 'node:path';
import { launchBrowser } from './browser';
import { startCodeServer, tail, type CodeServer, type CodeServerOptions } from './code-server';

export interface ExtensionTestsOptions {
  /** Folder of the extension under development (its package.json). */
  extensionDevelopmentPath: string;
  /** Module whose `run()` runs the tests; a rejection or throw means failure. */
  extensionTestsPath: string;
  /** A server started with `smokeTestDriver: true` to reuse; otherwise one is started and stopped. */
  server?: CodeServer;
  /** Options for the server started when `server` is not given. */
  serverOptions?: Omit<CodeServerOptions, 'smokeTestDriver'>;
  /** Default 180 s: workbench start (5–9 s when idle, far more under load) plus the suite. */
  timeoutMs?: number;
  /** Receives the page's console output (extension-host output is forwarded there). */
  onConsole?: (line: string) => void;
}

/** Runs the suite and resolves with its exit code: 0 when `run()` settled fine, else 1. */
export async function runExtensionHostTests(opts: ExtensionTestsOptions): Promise<number> {
  const server = opts.server ?? await startCodeServer({ ...opts.serverOptions, smokeTestDriver: true });
  try {
    return await runInBrowser(server, opts);
  } finally {
    if (!opts.server) await server.stop();
  }
}

async function runInBrowser(server: CodeServer, opts: ExtensionTestsOptions): Promise<number> {
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    if (opts.onConsole) page.on('console', (m) => opts.onConsole?.(m.text()));
    let exit!: (code: number) => void;
    const exited = new Promise<number>((r) => { exit = r; });
    // Exposed before navigation so the workbench sees it from its first script on.
    await page.exposeFunction('codeAutomationExit', (code: unknown) => { exit(typeof code === 'number' ? code : 1); });
    const timeoutMs = opts.timeoutMs ?? 180_000;
    const started = page.goto(testUrl(server, opts), { waitUntil: 'commit', timeout: timeoutMs });
    return await withTimeout(started.then(() => exited), timeoutMs, () => new Error(
      `extension tests ${opts.extensionTestsPath} did not finish within ${timeoutMs} ms ` +
      `(was code-server started with smokeTestDriver: true?)\n` +
      `--- server log tail ---\n${tail(server.logs())}\n` +
      `--- extension host log tail ---\n${tail(server.extensionHostLogs())}\n` +
      `--- browser console tail ---\n${tail(browser.consoleLog())}`));
  } finally {
    await browser.close();
  }
}

function testUrl(server: CodeServer, opts: ExtensionTestsOptions): string {
  const remote = (p: string) => `vscode-remote://127.0.0.1:${server.port}${resolve(p)}`;
  const payload = [
    ['extensionDevelopmentPath', remote(opts.extensionDevelopmentPath)],
    ['extensionTestsPath', remote(opts.extensionTestsPath)],
  ];
  return `${server.url}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

function withTimeout<T>(promise: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(error()), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
