// The lead and its teammates' branches (README "Worktrees"): the words each is given, and the
// lead's worktree tools — status merged / not merged, a diff of only what is left, removal
// offered and done only when nothing is lost. Real git, the real SDK, the fake API.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { reply, toolUse } from '../fake-api';
import { waitFor } from '../helpers/tmp';
import { harness } from './harness';
import { git, projectRepo } from './worktree-fixture';
import { partsOf } from '../helpers/session-parts';

type Req = { body: { messages: unknown[] } };

/** The tool results of request `i` of `agent` (the blocks of its last user message), as text. */
function results(h: { api: { requests(agent: string): Req[] } }, agent: string, i = -1): string[] {
  const user = (h.api.requests(agent).at(i)!.body.messages as Array<{ content: unknown }>).at(-1)!;
  return (user.content as Array<{ type: string; content: unknown }>).filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content));
}

test('prompts: a worktree teammate is told its branch, that only commits count and how they land; the lead is told about branches and its tools', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, {});
  h.api.script('ann', reply(toolUse('idle', {})));
  h.api.script('bea', reply(toolUse('idle', {})));
  h.api.script('lead', 'ok');
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Wait.', isolation: 'worktree' });
  await h.rt.spawnTeammate({ name: 'bea', role: 'dev', prompt: 'Wait.' });
  await h.rt.askLead('Hello.');
  await waitFor(() => h.api.requests('ann').length && h.api.requests('bea').length, 10_000, 'both asked');
  const system = (agent: string) => JSON.stringify(h.api.requests(agent)[0]!.body.system);
  assert.match(system('ann'), /You work in your own git worktree on branch wt\/ann\. Your work reaches the team only through commits on that branch: commit as you go and before you report work done \(git add -A && git commit -m \\"…\\"\); uncommitted files are never merged\. The lead lands your branch through the merge queue \(queue_merge\): do not merge it yourself, and do not touch the main checkout\./);
  assert.doesNotMatch(system('bea'), /branch|merge queue/, 'a teammate in the shared workspace has no branch of its own');
  const lead = system('lead');
  assert.match(lead, /A teammate spawned with isolation \\"worktree\\" works on branch wt\/<name> in \.worktrees\/<name> \(\\"container\\": team\/<name>, in its own container\); its work reaches you only as commits there\./);
  assert.match(lead, /Land a branch with queue_merge, never git merge in the workspace \(the user's own checkout\)\./);
  assert.match(lead, /Landings and failures come with results; a landed worktree whose teammate shut down is removed for you\./);
  const toolsOf = (agent: string) => h.api.requests(agent)[0]!.body.tools as Array<{ name: string }>;
  const tools = toolsOf('lead');
  assert.deepEqual(tools.filter((x) => x.name.startsWith('worktree_')).map((x) => x.name), ['worktree_status', 'worktree_diff', 'worktree_keep', 'worktree_remove']);
  assert.ok(!toolsOf('ann').some((x) => x.name.startsWith('worktree_')), 'teammates have no worktree tools');
  // What each worktree tool shows is said once, in its description.
  assert.match(JSON.stringify(tools.find((x) => x.name === 'worktree_status')), /which branches are merged into the current one/);
  assert.match(JSON.stringify(tools.find((x) => x.name === 'worktree_diff')), /what a teammate's branch has that is not merged yet/i);
  const spawn = JSON.stringify(tools.find((x) => x.name === 'spawn_teammate'));
  assert.match(spawn, /\\"worktree\\": its own branch/);
  assert.doesNotMatch(spawn, /until the user merges/);
});

test('the lead\'s worktree tools: not merged, then merged with nothing left to diff; removal refused while in use, done once shut down', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, { copy: ['node_modules'] });
  const commit = 'git -c user.name=t -c user.email=t@t commit -qm';
  h.api.script('ann', reply(toolUse('bash', { command: `echo "export const x = 1;" > feature.js && git add feature.js && ${commit} feature` })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'ann', role: 'dev', prompt: 'Write the feature and commit.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('ann'))?.status === 'idle' && h.api.requests('ann').length === 2, 10_000, 'ann idle');

  const tools = [toolUse('worktree_status', {}), toolUse('worktree_diff', { teammate: 'ann' }), toolUse('worktree_remove', { teammate: 'ann' })];
  h.api.script('lead', reply(...tools), 'Reviewed.', reply(...tools), 'Cleaned up.');
  await h.rt.askLead('Review ann\'s branch.');
  const [before, diff, refused] = results(h, 'lead');
  assert.match(before!, /ann: branch wt\/ann, checkout present, not merged into main \(1 commit\), in use by ann/);
  assert.doesNotMatch(before!, /remove it with/);
  assert.match(diff!, /wt\/ann: 1 file\(s\) not merged yet:\\nadded feature\.js.*\+export const x = 1;/);
  assert.match(refused!, /Refused: worktree \\"ann\\" is in use by ann/);

  // The branch lands (here by hand; the merge queue in a full team) and ann shuts down.
  assert.equal((await h.rt.worktrees.merge('ann')).status, 'merged');
  await h.rt.stopTeammate('ann');
  await h.rt.askLead('And now?');
  const [after, left, removed] = results(h, 'lead');
  assert.match(after!, /ann: branch wt\/ann, checkout present, merged into main — merged, clean and its teammate has shut down: remove it with worktree_remove/);
  assert.match(left!, /wt\/ann has nothing the current branch lacks\./);
  // The node_modules the setup copied in is not the teammate's work: it does not hold the removal up.
  assert.match(removed!, /Removed worktree \\"ann\\" and branch wt\/ann\./);
  await assert.rejects(stat(join(h.root, '.worktrees', 'ann')));
  await assert.rejects(git(h.root, 'rev-parse', '--verify', '--quiet', 'refs/heads/wt/ann'));
  assert.equal(await readFile(join(h.root, 'feature.js'), 'utf8'), 'export const x = 1;\n');
  assert.equal(await readFile(join(h.root, 'node_modules', 'dep', 'index.js'), 'utf8'), 'module.exports = 1;\n', 'the main checkout\'s copy is untouched');
});

test('the lead cannot remove a worktree whose branch is not merged: refused, work kept', async (t) => {
  const h = await harness(t);
  await projectRepo(h.root, {});
  const commit = 'git -c user.name=t -c user.email=t@t commit -qm';
  h.api.script('cal', reply(toolUse('bash', { command: `echo wip > wip.txt && git add wip.txt && ${commit} wip` })), reply(toolUse('idle', {})));
  await h.rt.spawnTeammate({ name: 'cal', role: 'dev', prompt: 'Go.', isolation: 'worktree' });
  await waitFor(async () => (await partsOf(h.rt).team.roster.get('cal'))?.status === 'idle' && h.api.requests('cal').length === 2, 10_000, 'cal idle');
  await h.rt.stopTeammate('cal');
  h.api.script('lead', reply(toolUse('worktree_remove', { teammate: 'cal' })), 'ok');
  await h.rt.askLead('Clean up.');
  assert.match(results(h, 'lead')[0]!, /Refused: wt\/cal has 1 commit\(s\) not merged into the current branch/);
  assert.equal(await readFile(join(h.root, '.worktrees', 'cal', 'wip.txt'), 'utf8'), 'wip\n');
});
