// Mail from the Inbox and the transcript panels (src/vscode/webviews/view-requests.ts) goes through the
// session's `send` action, like the Send Message command and the CLI: the recipient is checked
// before the team's folders are made (a refused message leaves no `.team/`, which a window
// would take for a team), a shut-down teammate is refused, and a panel's Stop is the `stop`
// action's. The scope is the window's shape: the action's check first, then the team opened.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { sessionScope, TeamSession } from '../../src/core/session';
import { mailFromView, stopFromView } from '../../src/vscode/webviews/view-requests';
import { partsOf } from '../helpers/session-parts';
import { tempDir } from '../helpers/tmp';

async function windowLike(t: Parameters<typeof tempDir>[0]) {
  const root = await tempDir(t);
  const session = new TeamSession({ root });
  t.after(() => session.dispose());
  let opened = 0;
  const scope = sessionScope(session, { ready: async () => { opened++; await session.initTeam(); } });
  return { root, session, scope, opened: () => opened };
}

const exists = (p: string) => stat(p).then(() => true, () => false);

test('mail from a view to an unknown recipient is refused before anything is written: no .team/ appears', async (t) => {
  const w = await windowLike(t);
  await assert.rejects(mailFromView(w.scope, 'zed', 'hello?'), /unknown recipient "zed"/);
  assert.equal(w.opened(), 0, 'the team was not opened for a refused message');
  assert.equal(await exists(join(w.root, '.team')), false, 'a refused message leaves no .team/');
});

test('mail from a view reaches a live recipient, and a shut-down teammate is refused', async (t) => {
  const w = await windowLike(t);
  const team = await partsOf(w.session).team.init();
  await team.spawnMember('ivy', 'dev');
  await team.roster.setStatus('ivy', 'shutdown');
  await assert.rejects(mailFromView(w.scope, 'ivy', 'still there?'), /has shut down/);
  await mailFromView(w.scope, 'lead', 'from the inbox view');
  assert.deepEqual((await w.session.view.inbox('lead')).map((m) => [m.from, m.content]), [['user', 'from the inbox view']]);
  assert.deepEqual(await w.session.view.inbox('ivy'), []);
});

test("a panel's Stop is the stop action's: refused with the reason where no agent runs", async (t) => {
  const w = await windowLike(t);
  await assert.rejects(stopFromView(w.scope, 'lead'), /No agent runs in this window/);
  await assert.rejects(stopFromView(w.scope, 'bob'), /No agent runs in this window/);
});
