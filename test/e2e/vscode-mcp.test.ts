// MCP servers from `.mcp.json` in VS Code, through the packaged extension (.vsix) in
// code-server + Chromium, with the scripted fake Messages API as the model and the real
// @modelcontextprotocol/server-everything from devDependencies as the server (as
// test/mcp/helpers.ts launches it; here through a small wrapper in the workspace that waits
// 3 s first, so "starting" can be seen). What the user sees: each server's command line in a
// dialog before its first start; a Team-tree row per server going from "waiting for your
// approval" through "starting" to "ready, N tools", or to "failed: <reason>"; each tool call
// asked about (Allow runs it once; "Always allow this tool" writes the rule to the
// workspace's agentTeams.permissions.allow, after which the tool runs without asking); and
// Restart from a failed server's row bringing it up once its cause is fixed; edits to
// .mcp.json applied while the window runs.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { reply, startFakeApi, toolUse, type FakeApi, type RecordedRequest, type TurnSpec } from '../fake-api';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { failureReport } from './harness/failure-report';
import { newest } from './harness/model-text';
import { repoRoot } from './harness/paths';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';
const API_KEY = 'sk-ant-mcp-e2e-key';
const EVERYTHING = join(repoRoot(), 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const ASK = 'Use the MCP tools.';
const ECHO = 'hi from the lead';

/** The lead: echo (allowed once), get-sum (always allowed), get-sum again (asks nothing), done. */
function lead(r: RecordedRequest): TurnSpec {
  const text = newest(r);
  if (text.includes(ASK)) return reply(toolUse('mcp__everything__echo', { message: ECHO }));
  if (text.includes(`Echo: ${ECHO}`)) return reply(toolUse('mcp__everything__get-sum', { a: 2, b: 3 }));
  if (/\b5\b/.test(text) && !/\b9\b/.test(text)) return reply(toolUse('mcp__everything__get-sum', { a: 4, b: 5 }));
  return 'Done.';
}

/** The tool_result blocks of a request's newest user turn. */
function toolResults(r: RecordedRequest): Array<{ content: unknown; is_error?: boolean }> {
  const last = r.body?.messages?.at(-1) as { content?: unknown } | undefined;
  return Array.isArray(last?.content) ? last.content.filter((b: { type?: string }) => b.type === 'tool_result') : [];
}

describe('VS Code: MCP servers from .mcp.json', () => {
  let workspace = '';
  let vs: SuiteWorkbench | undefined;
  let api: FakeApi | undefined;
  let server: CodeServer | undefined;
  let wb: Workbench | undefined;
  const row = (label: string) => wb!.treeRow(CONTAINER, label);

  before(async () => {
    api = await startFakeApi();
    api.setDefault((r) => (r.agent === 'lead' ? lead(r) : `unexpected agent ${r.agent}`));
    workspace = await mkdtemp(join(tmpdir(), 'agent-teams-mcp-'));
    await writeFile(join(workspace, 'slow-everything.mjs'), `await new Promise((r) => setTimeout(r, 3000));\nawait import(${JSON.stringify(EVERYTHING)});\n`);
    // "later" runs a script that is not there yet: it fails until the test writes it.
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: {
      everything: { command: process.execPath, args: [join(workspace, 'slow-everything.mjs')] },
      later: { command: process.execPath, args: [join(workspace, 'later-server.mjs')] },
    } }, null, 2));
    vs = await openSuiteWorkbench('mcp', { workspace, apiUrl: api.url, apiKey: API_KEY });
    ({ server, wb } = vs);
  });

  after(async () => {
    if (wb && process.env.AGENT_TEAMS_E2E_SHOTS) await wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, 'vscode-mcp.png'));
    await vs?.close();
    await api?.close();
    if (workspace) await rm(workspace, { recursive: true, force: true });
  });

  it('asks before the first start, shows each server in the Team tree, asks per tool call, writes "Always allow" as a rule, restarts from the row', async () => {
    try {
      const page = wb!.page;
      await wb!.runCommand('Agent Teams: Ask Lead');
      await wb!.answer('Ask Lead', ASK);

      // Before its first start, each server's command line is shown in a dialog (one at a time).
      const dialog = wb!.dialog();
      const startDialog = (name: string) => dialog.filter({ hasText: `Start the MCP server "${name}" from .mcp.json? It will run:` });
      const answered = new Set<string>();
      while (answered.size < 2) {
        await dialog.first().waitFor();
        const text = await dialog.first().innerText();
        const name = /Start the MCP server "(\w+)"/.exec(text)?.[1];
        assert.ok(name && !answered.has(name), `an unexpected dialog: ${text}`);
        assert.ok(text.includes(join(workspace, name === 'everything' ? 'slow-everything.mjs' : 'later-server.mjs')), `the command line is shown: ${text}`);
        await row(`MCP server ${name}, waiting for your approval to start`).waitFor();
        // "Start" once for everything; "Always start" for later (its Restart then asks nothing).
        await startDialog(name).getByRole('button', { name: name === 'everything' ? 'Start' : 'Always start', exact: true }).click();
        answered.add(name);
      }

      // everything starts (its wrapper waits 3 s) and becomes ready; later fails, with its reason.
      await row('MCP server everything, starting').waitFor();
      const ready = row('MCP server everything, ready, ');
      await ready.waitFor();
      assert.match(String(await ready.getAttribute('aria-label')), /^MCP server everything, ready, \d{2,} tools$/);
      const failed = row('MCP server later, failed: ');
      await failed.waitFor();
      assert.match(String(await failed.getAttribute('aria-label')), /later-server\.mjs: the server exited with code 1/);
      await wb!.notification('MCP server "later" failed').waitFor();

      // The first tool call is asked about: Allow runs it once.
      const ask = (tool: string) => wb!.notification(`lead wants to call the MCP tool ${tool}`);
      const echo = ask('mcp__everything__echo');
      await echo.waitFor();
      assert.ok((await echo.innerText()).includes(JSON.stringify({ message: ECHO })), 'the arguments are shown');
      await echo.getByRole('button', { name: 'Allow', exact: true }).click();
      const afterEcho = await api!.waitForRequest((r) => r.agent === 'lead' && newest(r).includes(`Echo: ${ECHO}`), 30_000);
      assert.equal(toolResults(afterEcho)[0]!.is_error, undefined);

      // "Always allow this tool" runs it and writes its rule to the workspace settings...
      const sum = ask('mcp__everything__get-sum');
      await sum.waitFor();
      await sum.getByRole('button', { name: 'Always allow all of mcp__everything', exact: true }).waitFor();
      await sum.getByRole('button', { name: 'Always allow this tool', exact: true }).click();
      const settings = await until('the rule is in .vscode/settings.json', async () => {
        const json = JSON.parse(await readFile(join(workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
        return json['agentTeams.permissions.allow'] !== undefined && json;
      });
      assert.deepEqual(settings['agentTeams.permissions.allow'], ['mcp__everything__get-sum']);
      // ...so the next call of it runs without a question, and its result reaches the model.
      const afterSum = await api!.waitForRequest((r) => r.agent === 'lead' && /\b9\b/.test(newest(r)), 30_000);
      assert.equal(toolResults(afterSum)[0]!.is_error, undefined);
      await row('lead, Lead, idle').waitFor();
      assert.equal(await wb!.notification('wants to call the MCP tool').count(), 0, 'no question left open');
      const center = await wb!.showNotificationCenter();
      assert.equal(await center.locator('.notification-list-item', { hasText: 'wants to call the MCP tool mcp__everything__get-sum' }).count(), 0,
        'the always-allowed call was not asked about');
      await page.keyboard.press('Escape');

      // The cause of later's failure is fixed (its script now exists); Restart from its row brings it up.
      await writeFile(join(workspace, 'later-server.mjs'), `await import(${JSON.stringify(EVERYTHING)});\n`);
      await failed.hover();
      await failed.locator('.action-label[aria-label^="Restart MCP Server"]').click();
      await row('MCP server later, ready, ').waitFor();
      await wb!.notification('MCP server "later": ready, ').waitFor();
      assert.equal(await dialog.count(), 0, '"Always start" was remembered: no second dialog');

      // .mcp.json is watched: a half-saved edit is reported once and changes nothing; removing
      // later stops it and takes its row away, everything runs on untouched.
      const mcpJson = join(workspace, '.mcp.json');
      const everything = { command: process.execPath, args: [join(workspace, 'slow-everything.mjs')] };
      await writeFile(mcpJson, '{"mcpServers": {"everything": ');
      await wb!.notification('.mcp.json is not valid JSON').waitFor();
      await writeFile(mcpJson, JSON.stringify({ mcpServers: { everything } }, null, 2));
      await row('MCP server later').waitFor({ state: 'detached' });
      assert.match(String(await ready.getAttribute('aria-label')), /^MCP server everything, ready, \d{2,} tools$/, 'everything was not restarted');
      assert.equal(await wb!.notification('.mcp.json is not valid JSON').count(), 1);
    } catch (err) {
      await failureReport(err, { wb, api, server, workspace });
    }
  });
});
