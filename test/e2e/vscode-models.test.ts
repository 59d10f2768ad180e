// Extension-host tests of the `vscode:` provider and the @team chat participant: test/e2e/ext-tests/models.ts
// runs in code-server's real extension host beside a fixture extension that registers a fake
// language-model provider (test/e2e/fixtures/fake-lm-ext). Team model: vscode:fake-lm/fake-tools.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runExtensionHostTests } from './harness/ext-host-tests';
import { repoRoot } from './harness/paths';

describe('VS Code language models and @team', () => {
  it('a vscode: teammate works through a registered language model; @team answers in the chat', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-models-'));
    const lines: string[] = [];
    try {
      const code = await runExtensionHostTests({
        extensionDevelopmentPath: repoRoot(),
        extensionTestsPath: join(repoRoot(), 'out', 'test', 'e2e', 'ext-tests', 'models.js'),
        // The fixture provider is installed (linked into the extensions dir) beside ours under development.
        serverOptions: { workspace, extensionPath: join(repoRoot(), 'test', 'e2e', 'fixtures', 'fake-lm-ext'), settings: { 'agentTeams.model': 'vscode:fake-lm/fake-tools', 'agentTeams.toolApproval.bash': 'allow', 'agentTeams.idleTimeoutSeconds': 0 } },
        timeoutMs: 180_000,
        onConsole: (l) => { if (/ext-host (ok|FAIL)|extension-host case|Error/.test(l)) lines.push(l); },
      });
      console.log(lines.join('\n'));
      assert.equal(code, 0, `extension-host suite failed:\n${lines.join('\n')}`);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
