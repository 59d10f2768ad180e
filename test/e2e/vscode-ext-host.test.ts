// Extension-host integration tests: test/e2e/ext-tests/ runs inside code-server's real
// extension host (the offline runTests of E2E.md) against a seeded workspace.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { seedTeam } from '../vscode/seed-team';
import { runExtensionHostTests } from './harness/ext-host-tests';
import { repoRoot } from './harness/paths';

const exec = promisify(execFile);

describe('VS Code extension host', () => {
  it('commands with argument objects and tree providers work with the real vscode API', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-ext-host-'));
    // A git repository with one commit, for the worktree commands.
    await writeFile(join(workspace, 'notes.txt'), 'first line\n');
    for (const args of [['init', '-q', '-b', 'main'], ['add', 'notes.txt'], ['commit', '-q', '-m', 'first']]) await exec('git', args, { cwd: workspace });
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
