// One e2e suite's VS Code, as the suites start it: the packaged extension (harness/package.ts),
// code-server on the suite's workspace with the model at the fake API (when there is one) and
// the team's idle settings the suites share, the workbench open on the Agent Teams container.
// `close` ends all of it; the fake API and the workspace stay the suite's.
import { openWorkbench, type Workbench } from './browser';
import { startCodeServer, type CodeServer, type CodeServerOptions } from './code-server';
import { packagedVsix } from './package';

export interface SuiteWorkbench {
  server: CodeServer;
  wb: Workbench;
  close(): Promise<void>;
}

export interface SuiteOptions {
  workspace: string;
  /** The fake Messages API; without one the extension has no model (a seeded team is only watched). */
  apiUrl?: string;
  /** ANTHROPIC_API_KEY in the window's environment ('' for none: the key is then asked for). */
  apiKey?: string;
  settings?: Record<string, unknown>;
  trust?: CodeServerOptions['trust'];
}

export async function openSuiteWorkbench(name: string, o: SuiteOptions): Promise<SuiteWorkbench> {
  const vsix = packagedVsix(name);
  let server: CodeServer | undefined;
  try {
    server = await startCodeServer({
      vsixPath: vsix.path, workspace: o.workspace, trust: o.trust,
      settings: { ...(o.apiUrl ? { 'agentTeams.baseUrl': o.apiUrl } : {}), 'agentTeams.idleTimeoutSeconds': 0, 'agentTeams.idlePollSeconds': 1, ...o.settings },
      env: { ANTHROPIC_API_KEY: o.apiKey ?? '', ANTHROPIC_BASE_URL: '' },
    });
    const wb = await openWorkbench(server.url);
    await wb.openContainer('Agent Teams');
    const s = server;
    return {
      server, wb,
      close: async () => {
        await wb.close();
        await s.stop();
        await vsix.dispose();
      },
    };
  } catch (err) {
    await server?.stop();
    await vsix.dispose();
    throw err;
  }
}
