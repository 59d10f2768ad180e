// One e2e suite's VS Code, as most suites start it: the extension packaged (.vsix), code-server
// on the suite's workspace with the model at the fake API and the team's idle settings the
// suites share, the workbench open on the Agent Teams container. `close` ends all of it and
// removes the package; the fake API and the workspace stay the suite's.
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openWorkbench, type Workbench } from './browser';
import { startCodeServer, type CodeServer } from './code-server';
import { repoRoot } from './paths';

export interface SuiteWorkbench {
  server: CodeServer;
  wb: Workbench;
  close(): Promise<void>;
}

export async function openSuiteWorkbench(name: string, o: { workspace: string; apiUrl: string; apiKey: string; settings?: Record<string, unknown> }): Promise<SuiteWorkbench> {
  const vsix = join(tmpdir(), `agent-teams-${name}-${process.pid}.vsix`);
  let server: CodeServer | undefined;
  try {
    execFileSync(process.execPath, [join(repoRoot(), 'scripts', 'package.mjs'), '--out', vsix], { stdio: ['ignore', 2, 2] });
    server = await startCodeServer({
      vsixPath: vsix, workspace: o.workspace,
      settings: { 'agentTeams.baseUrl': o.apiUrl, 'agentTeams.idleTimeoutSeconds': 0, 'agentTeams.idlePollSeconds': 1, ...o.settings },
      env: { ANTHROPIC_API_KEY: o.apiKey, ANTHROPIC_BASE_URL: '' },
    });
    const wb = await openWorkbench(server.url);
    await wb.openContainer('Agent Teams');
    const s = server;
    return {
      server, wb,
      close: async () => {
        await wb.close();
        await s.stop();
        await rm(vsix, { force: true });
      },
    };
  } catch (err) {
    await server?.stop();
    await rm(vsix, { force: true });
    throw err;
  }
}
