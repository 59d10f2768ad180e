// Approvals, force stop and API failures through the packaged extension (.vsix) in
// code-server + Chromium, with the model being the scripted fake Messages API (test/fake-api)
// on 127.0.0.1: a teammate's shell commands wait for Allow / Deny / Always allow in a
// notification; Stop Teammate from the Team tree's context menu kills a running command's
// whole process group and puts its task back on the board; a 401 from the API and a spent
// token budget each end in one clear notification instead of a stream of requests; a team
// that could not resume without a key resumes once Set API Key gives it one.
//
// The fake model (approvals-model.ts) answers from what each request says, never from call order.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Team } from '../../src/core/team/team';
import { keyFingerprint, startFakeApi, type FakeApi, type RecordedRequest } from '../fake-api';
import {
  API_KEY, NEW_KEY, ApprovalsModel, ASK_BUDGET, ASK_SAM, ASK_UMA, CMD_ALLOW, CMD_ALWAYS, CMD_DENY, CMD_LONG, CMD_LONG_TEXT, DENIED, TIM_PROMPT, VIC_MAIL,
} from './approvals-model';
import type { Workbench } from './harness/browser';
import type { CodeServer } from './harness/code-server';
import { failureReport } from './harness/failure-report';
import { allText, newest } from './harness/model-text';
import { openSuiteWorkbench, type SuiteWorkbench } from './harness/suite';
import { until } from './harness/until';

const CONTAINER = 'agentTeams';
const WAIT_MS = 30_000;
/** How long "nothing more happens" is watched: several idle polls (agentTeams.idlePollSeconds = 1). */
const QUIET_MS = 4_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The host's live processes running `sleep 417` (CMD_LONG's child), wherever they were started. */
async function hostSleepers(): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((n) => /^\d+$/.test(n)).map(Number);
  const found = await Promise.all(pids.map(async (p) => ((await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '')) === 'sleep\u0000417\u0000' && (await alive(p)) ? p : 0)));
  return found.filter((p) => p > 0);
}

/** Alive and not a zombie (a killed process its new parent has not reaped yet is gone for us). */
async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && !/^\d+ \(.*\) Z /.test(stat);
}

/** The tool_result blocks of a request's newest user turn. */
function toolResults(r: RecordedRequest): Array<{ content: string; is_error?: boolean }> {
  const last = r.body?.messages?.at(-1) as { content?: unknown } | undefined;
  return Array.isArray(last?.content) ? last.content.filter((b: { type?: string }) => b.type === 'tool_result') : [];
}

/** One code-server on a fresh workspace, with the fake API as the model and the key from the environment. */
interface SessionOptions {
  /** The key in the environment; '' for none (then it comes from Set API Key). */
  envKey?: string;
  /** Team files written before the window opens, as another process or an earlier run left them. */
  seed?: (root: string) => Promise<void>;
}

function session(name: string, settings: Record<string, unknown>, opts: SessionOptions = {}) {
  const s = {
    workspace: '', api: undefined as FakeApi | undefined, vs: undefined as SuiteWorkbench | undefined,
    server: undefined as CodeServer | undefined, wb: undefined as Workbench | undefined,
    file: (rel: string) => readFile(join(s.workspace, rel), 'utf8'),
    row: (label: string) => s.wb!.treeRow(CONTAINER, label),
    async start(): Promise<void> {
      s.api = await startFakeApi();
      new ApprovalsModel().install(s.api);
      s.workspace = await mkdtemp(join(tmpdir(), `agent-teams-${name}-`));
      await opts.seed?.(s.workspace);
      s.vs = await openSuiteWorkbench(name, { workspace: s.workspace, apiUrl: s.api.url, apiKey: opts.envKey ?? API_KEY, settings });
      ({ server: s.server, wb: s.wb } = s.vs);
    },
    async stop(): Promise<void> {
      if (s.wb && process.env.AGENT_TEAMS_E2E_SHOTS) await s.wb.screenshot(join(process.env.AGENT_TEAMS_E2E_SHOTS, `vscode-${name}.png`));
      await s.vs?.close();
      await s.api?.close();
      if (s.workspace) await rm(s.workspace, { recursive: true, force: true });
    },
    diagnose: (err: unknown) => failureReport(err, s),
  };
  return s;
}


describe('VS Code approvals: bash approval, force stop, API errors', () => {
  const s = session('approvals', { 'agentTeams.toolApproval.bash': 'ask' });
  before(() => s.start());
  after(() => s.stop());

  /** The approval notification for `command` (toast or notification center). */
  const approval = (who: string, command: string) => s.wb!.notification(`${who} wants to run \`${command}\``);
  const approvals = () => s.wb!.notification('wants to run');

  it('asks once per bash call: Allow runs it, Deny does not, Always allow stops asking for that command', async () => {
    try {
      const { api, wb } = s as { api: FakeApi; wb: Workbench };
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK_SAM);

      // Allow: the command runs, and its output is what the model is sent next.
      const allow = approval('sam', CMD_ALLOW);
      await allow.waitFor();
      assert.equal((await api.waitForRequest((r) => r.agent === 'sam', WAIT_MS)).keyFingerprint, keyFingerprint(API_KEY));
      await s.row('sam, shell runner, working, waiting for approval').waitFor();
      assert.equal(await approvals().count(), 1, 'one notification for the call');
      await assert.rejects(s.file('ran.txt'), 'nothing runs before the answer');
      await allow.getByRole('button', { name: 'Allow', exact: true }).click();
      const afterAllow = await api.waitForRequest((r) => r.agent === 'sam' && newest(r).includes('OUT-ALLOWED'), WAIT_MS);
      assert.deepEqual(toolResults(afterAllow).map((b) => [b.content, b.is_error ?? false]), [['OUT-ALLOWED\n\nExit code: 0', false]]);
      assert.equal(await s.file('ran.txt'), 'allowed\n');

      // Deny: nothing runs, and the model is told the user denied it.
      const deny = approval('sam', CMD_DENY);
      await deny.waitFor();
      assert.equal(await approvals().count(), 1, 'one notification for the call, the answered one gone');
      await deny.getByRole('button', { name: 'Deny', exact: true }).click();
      const afterDeny = await api.waitForRequest((r) => r.agent === 'sam' && newest(r).includes(DENIED), WAIT_MS);
      assert.deepEqual(toolResults(afterDeny).map((b) => [b.content, b.is_error]), [[DENIED, true]]);
      assert.equal(await s.file('ran.txt'), 'allowed\n', 'the denied command did not run');

      // Always allow: it runs now, and the same command later runs without asking (the second
      // run's result reaches the model although nobody answered anything).
      const always = approval('sam', CMD_ALWAYS);
      await always.waitFor();
      assert.equal(await approvals().count(), 1);
      await always.getByRole('button', { name: 'Always allow this command', exact: true }).click();
      await api.waitForRequest((r) => r.agent === 'sam' && allText(r).split('OUT-ALWAYS').length - 1 === 2, WAIT_MS);
      assert.equal(await s.file('ran.txt'), 'allowed\nalways\nalways\n');

      // A command too long for a toast is asked in a modal dialog that shows all of it.
      const dialog = wb.page.locator('.monaco-dialog-box');
      await dialog.filter({ hasText: `sam wants to run a ${CMD_LONG_TEXT.length}-character command` }).waitFor();
      assert.ok((await dialog.innerText()).includes('END-OF-LONG-COMMAND'), 'the end of the command is shown');
      assert.equal(await approvals().count(), 0, 'no toast for it');
      await dialog.getByRole('button', { name: 'Allow', exact: true }).click();
      await api.waitForRequest((r) => r.agent === 'sam' && newest(r).includes('OUT-LONG'), WAIT_MS);
      assert.equal(await s.file('ran.txt'), 'allowed\nalways\nalways\nlong\n');
      await s.row('sam, shell runner, idle').waitFor();
      // Every call had exactly one notification: none is left over, as a toast or in the center.
      assert.equal(await approvals().count(), 0);
      const center = await wb.showNotificationCenter();
      assert.equal(await center.locator('.notification-list-item', { hasText: 'wants to run' }).count(), 0);
      await wb.page.keyboard.press('Escape');

      // Request Shutdown from sam's context menu in the Team tree; sam agrees.
      await wb.contextMenu(s.row('sam, shell runner, idle'), 'Request Shutdown');
      await s.row('sam, shell runner, shutdown').waitFor();
      await wb.notification('sam shut down: Chores done.').waitFor();

      // Restart Teammate from the shut-down row: the same sam, its conversation resumed, its transcript going on.
      await wb.contextMenu(s.row('sam, shell runner, shutdown'), 'Restart Teammate');
      const back = await api.waitForRequest((r) => r.agent === 'sam' && newest(r).includes('The user restarted you'), WAIT_MS);
      assert.ok(allText(back).includes('OUT-LONG'), 'the conversation is resumed, not started over');
      await s.row('sam, shell runner, idle').waitFor();
      await wb.runCommand('Agent Teams: Open Transcript');
      await wb.pick('Open Transcript', 'sam');
      const rows = await until('sam\'s transcript panel', async () => {
        for (const f of wb.page.frames()) if (await f.locator('#rows').count().catch(() => 0)) return f.locator('#rows');
        return undefined;
      }, 60_000);
      await until('the transcript shows the work before the shutdown and after the restart', async () => {
        const text = await rows.innerText().catch(() => '');
        return text.includes('BACK-AGAIN') && text.includes('The user restarted you') && text.includes('OUT-ALLOWED');
      });
      // Shut down again: an idle sam would be handed the next test's task.
      await wb.contextMenu(s.row('sam, shell runner, idle'), 'Request Shutdown');
      await s.row('sam, shell runner, shutdown').waitFor();
    } catch (err) {
      await s.diagnose(err);
    }
  });

  it('Stop Teammate from the tree kills the running command\'s process group and frees its task', async () => {
    try {
      const { api, wb } = s as { api: FakeApi; wb: Workbench };
      await wb.runCommand('Agent Teams: Create Task');
      await wb.answer('Subject', 'Long job');
      await wb.answer('Description (optional)', '');
      await wb.answer('Files it may change', '');
      await until('task 1 written', async () => JSON.parse(await s.file('.tasks/task_1.json')).status === 'pending');

      await wb.runCommand('Agent Teams: Spawn Teammate');
      await wb.answer('Spawn Teammate', 'tim: runner');
      await wb.answer('Spawn tim: first instructions', TIM_PROMPT);
      // The defaults (team model, works at once, shared checkout): Enter on the first row.
      await wb.pick('Spawn tim: Enter to start', 'Spawn tim');

      // tim claims the task and starts the long command (allowed once).
      const ask = approval('tim', CMD_LONG);
      await ask.waitFor();
      await ask.getByRole('button', { name: 'Allow', exact: true }).click();
      // Its pids as the host sees them (in the sandbox the files hold the pid namespace's own).
      const pids = await until('the long command started', async () => {
        const [shell, child] = await Promise.all([s.file('long.pid'), s.file('sleep.pid')]);
        const sleepers = await hostSleepers();
        return Number(shell) > 0 && Number(child) > 0 && sleepers.length > 0 && sleepers;
      });
      const timRow = s.row('tim, runner, working, running bash, working on task 1: Long job');
      await timRow.waitFor();
      await s.row('task 1, Long job, in progress, owned by tim').waitFor();
      const requestsBefore = api.requests('tim').length;

      await wb.contextMenu(timRow, 'Stop Teammate');
      // The shell and its child are gone (the whole group), the tree says so, the task is free.
      await until('the process group is killed', async () => !(await Promise.all(pids.map(alive))).some(Boolean));
      await s.row('tim, runner, shutdown').waitFor();
      await s.row('task 1, Long job, pending, unowned').waitFor();
      const task = JSON.parse(await s.file('.tasks/task_1.json')) as { status: string; owner: string };
      assert.deepEqual([task.status, task.owner], ['pending', '']);
      await sleep(QUIET_MS);
      assert.equal(api.requests('tim').length, requestsBefore, 'a stopped teammate asks the model nothing more');
      assert.equal(await approvals().count(), 0);

      // Done with the job by hand (Complete Task in the Tasks tree's context menu), so no
      // teammate claims it later.
      await wb.contextMenu(s.row('task 1, Long job, pending, unowned'), 'Complete Task');
      await s.row('Completed, 1 task').waitFor();
      assert.equal(JSON.parse(await s.file('.tasks/task_1.json')).status, 'completed');
    } catch (err) {
      await s.diagnose(err);
    }
  });

  it('a 401 from the API is one clear error notification, not a retry loop; a new key reaches the running teammate', async () => {
    try {
      const { api, wb } = s as { api: FakeApi; wb: Workbench };
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK_UMA);
      const error = wb.notification('uma: API key rejected (401)');
      await error.waitFor();
      const text = await error.innerText();
      assert.match(text, /Agent Teams: uma: API key rejected \(401\): invalid x-api-key\. Set a valid key with "Agent Teams: Set API Key" or ANTHROPIC_API_KEY\./);
      assert.doesNotMatch(text, /uma: uma:/, 'the agent is named once');
      await error.getByRole('button', { name: 'Show Log' }).waitFor();
      await s.row('uma, reporter, idle').waitFor();
      // An authentication error is not retried: uma asked once and stays quiet until woken.
      await sleep(QUIET_MS);
      assert.deepEqual(api.requests('uma').map((r) => r.outcome), ['error:401']);
      assert.equal(await wb.notification('API key rejected').count(), 1);

      // A new key reaches uma, which keeps running: its next call (woken by a message) uses it.
      await wb.runCommand('Agent Teams: Set API Key');
      await wb.answer('Set API Key', NEW_KEY);
      await wb.notification('API key saved in secret storage').waitFor();
      await wb.runCommand('Agent Teams: Send Message');
      await wb.pick('Send Message: to whom?', 'uma');
      await wb.answer('Message to uma', 'Try the report again.');
      const retried = await api.waitForRequest((r) => r.agent === 'uma' && newest(r).includes('Try the report again.'), WAIT_MS);
      assert.equal(retried.keyFingerprint, keyFingerprint(NEW_KEY));
      await until('uma answered', async () => retried.outcome === 'reply');
      await s.row('uma, reporter, idle').waitFor();
    } catch (err) {
      await s.diagnose(err);
    }
  });

  it('an idle teammate can be force-stopped: the Stop Teammate picker offers it', async () => {
    try {
      const { wb } = s as { api: FakeApi; wb: Workbench };
      await s.row('uma, reporter, idle').waitFor();
      await wb.runCommand('Agent Teams: Stop Teammate');
      await wb.pick('Stop Teammate', 'uma');
      await s.row('uma, reporter, shutdown').waitFor();
    } catch (err) {
      await s.diagnose(err);
    }
  });
});

describe('VS Code approvals: a spent token budget pauses the team', () => {
  const s = session('budget', { 'agentTeams.tokenBudget': 1 });
  before(() => s.start());
  after(() => s.stop());

  it('notifies once, makes no further model request, and resumes when the budget is raised', async () => {
    try {
      const { api, wb } = s as { api: FakeApi; wb: Workbench };
      await wb.runCommand('Agent Teams: Ask Lead');
      await wb.answer('Ask Lead', ASK_BUDGET);
      // The first call fits the budget of 1 token and spends it; the tool still runs.
      await until('budget.txt written', async () => (await s.file('budget.txt')) === 'spent\n');
      const notice = wb.notification('Token budget of 1 spent: the team is paused. Raise agentTeams.tokenBudget to continue.');
      await notice.waitFor();
      await s.row('lead, Lead, working, paused: token budget spent').waitFor();
      await sleep(QUIET_MS);
      assert.equal(api.requests().length, 1, 'no model request once the budget is spent');
      assert.equal(await wb.notification('Token budget').count(), 1);

      // Raising the budget in the Settings editor lets the paused call go out.
      await wb.runCommand('Preferences: Open Settings (UI)');
      const editor = wb.page.locator('.settings-editor');
      await editor.locator('.settings-header .suggest-input-container').click();
      await wb.page.keyboard.type('agentTeams.tokenBudget');
      const input = editor.locator('.setting-item-number', { hasText: 'Token Budget' }).locator('input');
      await input.fill('100000000');
      await input.press('Tab');
      const resumed = await api.waitForRequest((r) => r.agent === 'lead' && newest(r).includes('Created budget.txt'), WAIT_MS);
      assert.match(newest(resumed), /Created budget\.txt/);
      await s.row('lead, Lead, idle').waitFor();
    } catch (err) {
      await s.diagnose(err);
    }
  });
});

describe('VS Code approvals: a team left without a key resumes when the key is set', () => {
  const s = session('nokey', {}, {
    envKey: '',
    // vic is idle with a message waiting, as a window closed before he read it left him.
    seed: async (root) => {
      const team = await new Team(root).init();
      await team.spawnMember('vic', 'summariser');
      await team.roster.setStatus('vic', 'idle');
      await team.mailbox.send({ from: 'lead', to: 'vic', type: 'message', content: VIC_MAIL });
      team.dispose();
    },
  });
  before(() => s.start());
  after(() => s.stop());

  it('runs nothing without a key, then Set API Key resumes the teammate with the new key', async () => {
    try {
      const { api, wb } = s as { api: FakeApi; wb: Workbench };
      await s.row('vic, summariser, idle').waitFor();
      await sleep(QUIET_MS);
      assert.equal(api.requests().length, 0, 'no model call without a key');
      await wb.runCommand('Agent Teams: Set API Key');
      await wb.answer('Set API Key', NEW_KEY);
      const resumed = await api.waitForRequest((r) => r.agent === 'vic' && newest(r).includes(VIC_MAIL), WAIT_MS);
      assert.equal(resumed.keyFingerprint, keyFingerprint(NEW_KEY));
      await until('vic answered', async () => resumed.outcome === 'reply');
      await s.row('vic, summariser, idle').waitFor();
      // The mail was delivered: it is not read again on the next wake.
      assert.equal(api.requests('vic').filter((r) => newest(r).includes(VIC_MAIL)).length, 1);
    } catch (err) {
      await s.diagnose(err);
    }
  });
});
