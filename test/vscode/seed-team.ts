// A small team written through the core, as another process would: the lead's two teammates
// (alice working on a task, bob idle), a plan of alice's waiting for the user, messages of
// every type and a task board with a blocked task. Shared by the VS Code e2e tests.
import { Team } from '../../src/core/team/team';

export const XSS = '<img src=x onerror="window.parent.postMessage(\'xss\',\'*\');document.title=\'pwned\'"> <script>document.title="pwned"</script> **bold** and `code`';

export interface Seeded {
  team: Team;
  planRequestId: string;
}

export async function seedTeam(root: string, opts: { plan?: boolean } = {}): Promise<Seeded> {
  const team = await new Team(root).init();
  await team.roster.setTeamName('demo');
  await team.spawnMember('alice', 'backend engineer');
  await team.spawnMember('bob', 'tester');
  await team.roster.patch('alice', { usage: { input: 12000, output: 3400, cache_read: 500, cache_write: 100 } });
  await team.roster.setStatus('bob', 'idle');
  const t1 = await team.tasks.create({ subject: 'Write the parser', description: 'Parse the input format' });
  await team.tasks.create({ subject: 'Test the parser', blockedBy: [t1.id] });
  await team.tasks.claim(t1.id, 'alice');
  await team.roster.patch('alice', { current_task: t1.id });
  await team.mailbox.send({ from: 'lead', to: 'alice', type: 'message', content: 'Please write the parser.' });
  await team.mailbox.send({ from: 'alice', to: 'lead', type: 'message', content: XSS });
  await team.mailbox.broadcast('lead', 'Stand-up in five minutes.');
  let planRequestId = '';
  if (opts.plan !== false) {
    const rec = await team.submitPlan('alice', '1. Read the spec\n2. Write `parse()`\n3. Add tests', 'user');
    planRequestId = rec.request_id;
  }
  return { team, planRequestId };
}
