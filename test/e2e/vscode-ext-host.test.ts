// Extension-host integration tests: test/e2e/ext-tests/ runs inside code-server's real
// extension host (the offline runTests of E2E.md) against a seeded workspace.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { seedTeam } from '../vscode/seed-team';
import { runExtensionHostTests } from './harness/ext-host-tests';
import { repoRoot } from './harness/paths';

describe('VS Code extension host', () => {
  it('commands with argument objects and tree providers work with the real vscode API', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-ext-host-'));
    const { team } = await seedTeam(workspace);
    team.dispose();
    const lines: string[] = [];
    try {
      const code = await runExtensionHostTests({
        extensionDevelopmentPath: repoRoot(),
        extensionTestsPath: join(repoRoot(), 'out', 'test', 'e2e', 'ext-tests', 'index.js'),
        serverOptions: { workspace },
        timeoutMs: 180_000,
        onConsole: (l) => { if (/ext-host (ok|FAIL)|extension-host case/.test(l)) lines.push(l); },
      });
      console.log(lines.join('\n'));
      assert.equal(code, 0, `extension-host suite failed:\n${lines.join('\n')}`);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
