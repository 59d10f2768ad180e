// What the session shows without being asked: mail to `user` as it arrives, plans that
// wait for the user's decision, and teammates changing status. All are driven by the
// engine's file watching, so changes made by other processes show up too.
import type { MemberStatus } from '../shared/schemas';
import { coalesce, type Disposable, type TeamSession } from '../core/session';
import { messageText, planNotice } from './format';

export async function watchTeam(rt: TeamSession, print: (text: string) => void): Promise<Disposable> {
  const team = rt.view;
  const subs: Disposable[] = [];

  // Mail to the user, from where the inbox ends now (the history is one /inbox away).
  let offset = (await team.inboxFrom('user', 0)).cursor;
  const readMail = coalesce(async () => {
    const d = await team.inboxFrom('user', offset);
    offset = d.cursor;
    // Plan submissions are shown by the requests watcher, with what to type.
    for (const m of d.messages) if (m.type !== 'plan_approval_request') print(`mail: ${messageText(m, false)}`);
  });
  subs.push(await team.onInbox('user', readMail));

  // Plans awaiting the user: shown once each, including those pending before we started.
  const shown = new Set<string>();
  const readPlans = coalesce(async () => {
    for (const r of await team.requests({ kind: 'plan', status: 'pending', to: 'user' })) {
      if (shown.has(r.request_id)) continue;
      shown.add(r.request_id);
      print(planNotice(r));
    }
  });

  // Status changes of teammates (spawned, idle, working, shut down).
  const statuses = new Map<string, MemberStatus>((await team.members()).map((m) => [m.name, m.status]));
  const readRoster = coalesce(async () => {
    for (const m of await team.members()) {
      if (statuses.get(m.name) === m.status) continue;
      statuses.set(m.name, m.status);
      print(`· ${m.name}: ${m.status}`);
    }
  });

  subs.push(await rt.subscribe((what) => {
    if (what === 'requests') void readPlans();
    else if (what === 'roster') void readRoster();
  }));
  void readPlans();
  return { dispose: () => subs.forEach((s) => s.dispose()) };
}
