// Restricted Mode (Workspace Trust declined): the extension still shows the team read-only,
// every view says why agents do not run, and commands that would run agents refuse.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Team } from '../../src/core/team/team';
import { seedTeam } from '../vscode/seed-team';
import { openWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/code-server';
import { repoRoot } from './harness/paths';

const CONTAINER = '[id="workbench.view.extension.agentTeams"]';

describe('VS Code in Restricted Mode', () => {
  let workspace: string;
  let team: Team;
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;

  before(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-restricted-'));
    ({ team } = await seedTeam(workspace, { plan: false }));
    server = await startCodeServer({ extensionPath: repoRoot(), workspace, trust: 'prompt' });
    wb = await openWorkbench(server.url);
    await wb.dialog().getByRole('button', { name: /don.t trust/i }).click();
    await wb.openContainer('Agent Teams');
  });

  after(async () => {
    if (wb && process.env.AGENT_TEAMS_E2E_SHOTS) await wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, 'vscode-restricted.png'));
    await wb?.close();
    await server?.stop();
    team?.dispose();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('shows the team read-only and says why agents do not run', async () => {
    await wb!.treeRow('agentTeams', 'alice, backend engineer, working').waitFor();
    await wb!.page.locator(CONTAINER).getByText('Restricted Mode: agents do not run in this untrusted workspace.').first().waitFor();
    await wb!.webview('agent-teams.agent-teams').getByText(/Restricted Mode: agents do not run/).waitFor();
  });

  it('refuses Ask Lead and Spawn Teammate', async () => {
    await wb!.runCommand('Agent Teams: Ask Lead');
    const warning = wb!.notification('Agents do not run in Restricted Mode');
    await warning.first().waitFor();
    await warning.first().getByRole('button', { name: 'Manage Workspace Trust' }).waitFor();
    // Refused before asking anything: no input box is left open.
    await wb!.page.locator('.quick-input-widget input').waitFor({ state: 'hidden' });
  });
});
