// A multi-root workspace: the team lives in the first folder, and the views say which folder
// that is (the tree views' description), so a user with several folders open is not left to
// guess where `.team/` and `.tasks/` are.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Team } from '../../src/core/team/team';
import { seedTeam } from '../vscode/seed-team';
import { openWorkbench, type Workbench } from './harness/browser';
import { startCodeServer, type CodeServer } from './harness/code-server';
import { repoRoot } from './harness/paths';

const CONTAINER = '[id="workbench.view.extension.agentTeams"]';

describe('VS Code with a multi-root workspace', () => {
  let dir: string;
  let team: Team;
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;
  let first: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-teams-multiroot-'));
    first = join(dir, 'service-api');
    const second = join(dir, 'web-client');
    ({ team } = await seedTeam(first, { plan: false }));
    const file = join(dir, 'both.code-workspace');
    await writeFile(file, JSON.stringify({ folders: [{ path: first }, { path: second }] }));
    server = await startCodeServer({ extensionPath: repoRoot(), workspace: second });
    const url = new URL(server.url);
    url.searchParams.delete('folder');
    url.searchParams.set('workspace', file);
    wb = await openWorkbench(url.toString());
    await wb.openContainer('Agent Teams');
  });

  after(async () => {
    await wb?.close();
    await server?.stop();
    team?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the first folder\'s team and names that folder in the views', async () => {
    await wb!.treeRow('agentTeams', 'alice, backend engineer, working').waitFor();
    const headers = wb!.page.locator(`${CONTAINER} .pane-header`);
    await headers.filter({ hasText: 'Team' }).filter({ hasText: basename(first) }).first().waitFor();
    await headers.filter({ hasText: 'Tasks' }).filter({ hasText: basename(first) }).first().waitFor();
  });
});
