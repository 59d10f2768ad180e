// package.json's contributions: ids, palette titles and category, settings and
// their defaults, trust declaration, and internal commands kept out of the palette.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS } from '../../src/core/runtime/types';

interface Manifest {
  activationEvents: string[];
  engines: { vscode: string };
  capabilities: { untrustedWorkspaces: { supported: string | boolean; description?: string } };
  contributes: {
    viewsContainers: { activitybar: { id: string; title: string; icon: string }[] };
    languageModelChatProviders?: { vendor: string; displayName: string }[];
    walkthroughs?: { id: string; steps: { id: string; title: string; media: { markdown?: string }; completionEvents?: string[] }[] }[];
    views: Record<string, { id: string; type?: string }[]>;
    viewsWelcome: { view: string; contents: string; when?: string }[];
    commands: { command: string; title: string; category: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    configuration: { properties: Record<string, { default: unknown; description?: string; markdownDescription?: string }> };
  };
}

const repo = join(__dirname, '..', '..', '..');
const load = async (): Promise<Manifest> => JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as Manifest;

const SPEC_TITLES: Record<string, string> = {
  askLead: 'Ask Lead', spawnTeammate: 'Spawn Teammate', sendMessage: 'Send Message', broadcast: 'Broadcast',
  requestShutdown: 'Request Shutdown', stopTeammate: 'Stop Teammate', approvePlan: 'Approve Plan', rejectPlan: 'Reject Plan',
  createTask: 'Create Task', openInbox: 'Open Inbox', setApiKey: 'Set API Key', showLog: 'Show Log',
  openTranscript: 'Open Transcript', showChanges: 'Show Changes', requestPlan: 'Request Plan', setOpenAIKey: 'Set OpenAI API Key',
  // SPEC §22.
  reviewPlan: 'Review Plan', restartTeammate: 'Restart Teammate', gettingStarted: 'Get Started', takeOverLead: 'Take Over Lead',
};

describe('package.json contributions', () => {
  it('declare the container and its four views', async () => {
    const m = await load();
    assert.deepEqual(m.contributes.viewsContainers.activitybar.map((c) => [c.id, c.title]), [['agentTeams', 'Agent Teams']]);
    assert.deepEqual(m.contributes.views.agentTeams!.map((v) => [v.id, v.type ?? 'tree']),
      [['agentTeams.team', 'tree'], ['agentTeams.tasks', 'tree'], ['agentTeams.changes', 'tree'], ['agentTeams.inbox', 'webview']]);
    // A transcript panel restored after a reload needs an event of its own (VS Code does not
    // derive it): the extension must wake to fill it. The Chat view's models (vendor
    // agent-teams) are asked for before any view of ours is open: said explicitly too.
    assert.deepEqual(m.activationEvents, ['onWebviewPanel:agentTeams.transcript', 'onLanguageModelChatProvider:agent-teams']);
    assert.deepEqual(m.contributes.languageModelChatProviders, [{ vendor: 'agent-teams', displayName: 'Agent Teams' }]);
    assert.equal(m.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(m.capabilities.untrustedWorkspaces.description);
  });

  it('give every SPEC command its exact title under the Agent Teams category', async () => {
    const m = await load();
    for (const [id, title] of Object.entries(SPEC_TITLES)) {
      const c = m.contributes.commands.find((x) => x.command === `agentTeams.${id}`);
      assert.deepEqual([c?.title, c?.category], [title, 'Agent Teams'], id);
    }
  });

  it('hide internal commands from the palette', async () => {
    const m = await load();
    const hidden = new Set(m.contributes.menus.commandPalette!.filter((e) => e.when === 'false').map((e) => e.command));
    // Besides SPEC §7, the worktree commands and Open Documentation are for users too (palette and tree menu).
    const worktree = ['agentTeams.openDoc', 'agentTeams.worktreeDiff', 'agentTeams.worktreeMerge', 'agentTeams.worktreeKeep', 'agentTeams.worktreeRemove',
      'agentTeams.queueMerge', 'agentTeams.retryMerge', 'agentTeams.cancelMerge', 'agentTeams.approveMerge'];
    for (const id of m.contributes.commands.map((c) => c.command)) {
      const isPublic = id.replace('agentTeams.', '') in SPEC_TITLES || worktree.includes(id);
      assert.equal(hidden.has(id), !isPublic, id);
    }
  });

  it('declare every setting with its default and a description', async () => {
    const props = (await load()).contributes.configuration.properties;
    const defaults: Record<string, unknown> = {
      'agentTeams.model': 'claude-sonnet-5-5', 'agentTeams.baseUrl': '', 'agentTeams.maxRounds': 50, 'agentTeams.idlePollSeconds': 5,
      'agentTeams.idleTimeoutSeconds': 60, 'agentTeams.planApproval': 'user', 'agentTeams.toolApproval.bash': 'ask',
      'agentTeams.tokenBudget': 0, 'agentTeams.maxTeammates': 8, 'agentTeams.requirePlan': 'never', 'agentTeams.confirmTeam': false,
      'agentTeams.merge.auto': 'off', 'agentTeams.merge.testCommand': '',
    };
    // The core's defaults (the CLI, or a cleared setting) are the manifest's.
    const core = { ...DEFAULT_SETTINGS } as Record<string, unknown>;
    for (const k of ['model', 'maxRounds', 'idlePollSeconds', 'idleTimeoutSeconds', 'planApproval', 'tokenBudget', 'maxTeammates']) {
      assert.equal(core[k], defaults[`agentTeams.${k}`], `DEFAULT_SETTINGS.${k}`);
    }
    assert.equal(core.bashPolicy, defaults['agentTeams.toolApproval.bash']);
    assert.deepEqual([core.mergeAuto, core.mergeTestCommand], [defaults['agentTeams.merge.auto'], defaults['agentTeams.merge.testCommand']]);
    for (const [key, value] of Object.entries(defaults)) {
      assert.equal(props[key]?.default, value, key);
      assert.ok(props[key]?.description ?? props[key]?.markdownDescription, `${key} has a description`);
    }
  });

  it('offer welcome content for no folder, Restricted Mode, no key and no team', async () => {
    const welcome = (await load()).contributes.viewsWelcome.filter((w) => w.view === 'agentTeams.team');
    for (const link of ['workbench.action.files.openFolder', 'workbench.trust.manage', 'agentTeams.setApiKey', 'agentTeams.askLead']) {
      assert.ok(welcome.some((w) => w.contents.includes(`command:${link}`)), link);
    }
  });

  it('offer Remove Worktree inline on a shut-down teammate whose worktree is merged and clean, and the worktree menu on every worktree row', async () => {
    const menu = (await load()).contributes.menus['view/item/context'] ?? [];
    const whenRe = (w: string | undefined) => new RegExp(/viewItem =~ \/(.+)\/$/.exec(w ?? '')![1]!.replace(/\\\\/g, '\\'));
    const inline = menu.filter((x) => x.command === 'agentTeams.worktreeRemove' && x.group?.startsWith('inline'));
    assert.equal(inline.length, 1);
    assert.match('member.teammate.shutdown.wt.removable', whenRe(inline[0]!.when));
    for (const row of ['member.teammate.shutdown.wt', 'member.teammate.idle.wt', 'member.teammate.shutdown']) assert.doesNotMatch(row, whenRe(inline[0]!.when), row);
    for (const id of ['agentTeams.worktreeDiff', 'agentTeams.worktreeMerge', 'agentTeams.worktreeKeep', 'agentTeams.worktreeRemove']) {
      const entry = menu.find((x) => x.command === id && x.group?.startsWith('3_worktree'));
      for (const row of ['member.teammate.idle.wt', 'member.teammate.shutdown.wt.removable']) assert.match(row, whenRe(entry?.when), `${id} on ${row}`);
    }
  });

  it('offer Take Over Lead inline on the lead\'s row only while another window runs it', async () => {
    const menu = (await load()).contributes.menus['view/item/context'] ?? [];
    const inline = menu.filter((x) => x.command === 'agentTeams.takeOverLead' && x.group?.startsWith('inline'));
    assert.deepEqual(inline.map((x) => x.when), ['view == agentTeams.team && viewItem == member.lead.remote']);
  });

  it('offer Stop Teammate on idle teammates as well as working ones (an idle teammate can hang on to a task)', async () => {
    const menu = (await load()).contributes.menus['view/item/context'] ?? [];
    const stop = menu.find((x) => x.command === 'agentTeams.stopTeammate');
    const re = /viewItem =~ \/(.+)\/$/.exec(stop?.when ?? '');
    assert.ok(re, stop?.when);
    const matches = new RegExp(re[1]!.replace(/\\\\/g, '\\'));
    for (const row of ['member.teammate.working', 'member.teammate.idle', 'member.teammate.idle.wt']) assert.match(row, matches, row);
    for (const row of ['member.teammate.shutdown', 'member.lead']) assert.doesNotMatch(row, matches, row);
  });

  it('the walkthrough covers a key, a first request, watching, approving and the merge queue, each with a shipped page', async () => {
    const m = await load();
    const [w] = m.contributes.walkthroughs ?? [];
    assert.equal(w?.id, 'agentTeams.gettingStarted');
    assert.deepEqual(w!.steps.map((s) => s.id), ['key', 'firstRequest', 'watch', 'approve', 'mergeQueue']);
    for (const s of w!.steps) {
      const page = await readFile(join(repo, s.media.markdown!), 'utf8');
      assert.ok(page.startsWith('# '), `${s.media.markdown} is a page`);
      assert.ok(s.media.markdown!.startsWith('media/'), 'shipped in the .vsix (media/** is in .vscodeignore\'s allowlist)');
      assert.ok(!/SPEC/.test(page), 'no internal document named');
    }
  });

  it('every step completes on events the extension reports itself (VS Code misses those before its walkthrough service exists)', async () => {
    const m = await load();
    const commands = new Set(m.contributes.commands.map((c) => c.command));
    // src/vscode/host/walkthrough.ts matches `onContext:<key>` by the key's name (set through its
    // setContext), `onCommand:` by the command that ran, `onView:` for the Team view (surface.ts).
    const keys = ['agentTeams.hasApiKey', 'agentTeams.hasTeam', 'agentTeams.canStart'];
    for (const s of m.contributes.walkthroughs![0]!.steps) {
      assert.ok(s.completionEvents?.length, `${s.id} has completion events`);
      for (const e of s.completionEvents!) {
        const [, kind, arg] = /^(onContext|onCommand|onView):(.*)$/.exec(e) ?? [];
        assert.ok(kind === 'onContext' ? keys.includes(arg!) : kind === 'onCommand' ? commands.has(arg!) : arg === 'agentTeams.team', `${s.id}: ${e} is reported by the extension`);
      }
    }
  });

  it('settings name documents as links that open the copy shipped in the extension, and never an internal document', async () => {
    const m = await load();
    const shipped = (await readFile(join(repo, '.vscodeignore'), 'utf8')).split('\n');
    assert.ok(shipped.includes('!docs/**'), 'docs/ is in the .vsix');
    assert.ok(shipped.includes('!dist/netbridge/**'), 'the containers\' network bridge is in the .vsix (docs/containers.md)');
    let links = 0;
    for (const [key, p] of Object.entries(m.contributes.configuration.properties)) {
      const text = `${p.description ?? ''} ${p.markdownDescription ?? ''}`;
      assert.ok(!/\bSPEC\b/.test(text), `${key} names an internal document`);
      assert.ok(!/docs\/[a-z-]+\.md(?!\]\(command:)/.test(text.replace(/\[docs\/[a-z-]+\.md\]\(command:[^)]*\)/g, '')), `${key} names a document without a link`);
      for (const l of text.matchAll(/\]\(command:agentTeams\.openDoc\?([^)]*)\)/g)) {
        const { doc } = JSON.parse(decodeURIComponent(l[1]!)) as { doc: string };
        await readFile(join(repo, 'docs', `${doc}.md`), 'utf8');
        links++;
      }
    }
    assert.ok(links >= 5, `${links} links`);
    assert.ok(m.contributes.commands.some((c) => c.command === 'agentTeams.openDoc' && c.title === 'Open Documentation'));
  });
});
