// The `agent-teams` language model provider (docs/models.md, "Models for the Chat view") through
// vscode.lm in code-server's real extension host (test/e2e/ext-tests/lm-provider.ts), with the
// user's Anthropic key and the fake Messages API behind it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reply, startFakeApi, toolUse } from '../fake-api';
import { allText } from './harness/model-text';
import { runExtensionHostTests } from './harness/ext-host-tests';
import { repoRoot } from './harness/paths';

describe('VS Code: Agent Teams models for the Chat view', () => {
  it('vscode.lm offers the models the key reaches and streams their answers, tools included', async () => {
    const api = await startFakeApi({ identify: (body) => (JSON.stringify(body).includes('PROVIDER-ASK') ? 'chat' : 'other') });
    api.script('chat', reply('Looking it up.', toolUse('lookup', { word: 'team' })), reply('It means a group working together.'));
    const workspace = await mkdtemp(join(tmpdir(), 'agent-teams-lm-provider-'));
    const lines: string[] = [];
    try {
      const code = await runExtensionHostTests({
        extensionDevelopmentPath: repoRoot(),
        extensionTestsPath: join(repoRoot(), 'out', 'test', 'e2e', 'ext-tests', 'lm-provider.js'),
        serverOptions: { workspace, settings: { 'agentTeams.baseUrl': api.url }, env: { ANTHROPIC_API_KEY: 'sk-ant-provider-key', ANTHROPIC_BASE_URL: '' } },
        timeoutMs: 180_000,
        onConsole: (l) => { if (/ext-host (ok|FAIL)|Error|assert/i.test(l)) lines.push(l); },
      });
      console.log(lines.join('\n'));
      assert.equal(code, 0, `extension-host suite failed:\n${lines.join('\n')}`);
      const [first, second] = api.requests('chat');
      assert.deepEqual((first!.body as { tools?: Array<{ name: string }> }).tools?.map((t) => t.name), ['lookup'], 'the tool reached the API');
      assert.match(allText(second!), /a group working together/, 'the tool result reached the API');
      assert.equal((second!.body as { model?: string }).model, 'claude-sonnet-5-5');
    } finally {
      await api.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
