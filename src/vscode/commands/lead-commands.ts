// Take Over Lead (README.md, "One lead per workspace"): the lead runs in one window at a
// time; when that window is gone while its backend lives on (a browser closed on
// code-server, a lost connection), its lease never goes stale and nothing would move the
// lead. This command moves it here after one confirmation: the other window's lead stops at
// its next heartbeat and is fenced out meanwhile. Offered inline on the lead's row while it
// runs elsewhere, and on the notices that say so (notifications.ts).
import * as vscode from 'vscode';
import { z } from 'zod';
import type { CommandContext } from './command-context';
import { spec, type CommandSpec } from './command-spec';
import { CANCEL, type Asked } from './questions';

export const TAKE_OVER_LEAD = 'agentTeams.takeOverLead';

/** Where the lead runs now, in words ("another window (pid 4242 on devbox)"). */
async function whereLeadRuns(ctx: CommandContext): Promise<string> {
  const h = (await ctx.session.view.roster().catch(() => undefined))?.lead?.host;
  return h ? `another window (pid ${h.pid}${h.hostname ? ` on ${h.hostname}` : ''})` : 'another window';
}

async function confirmTakeOver(ctx: CommandContext): Promise<Asked<boolean>> {
  await ctx.agents();
  // Nothing to confirm: run() says the lead is here already.
  if (ctx.session.activity('lead').kind !== 'remote') return true;
  const yes = 'Take Over Lead';
  const choice = await vscode.window.showWarningMessage(`The lead runs in ${await whereLeadRuns(ctx)}. Take it over in this window?`, {
    modal: true,
    detail: 'Do this when that window is gone: a closed browser tab, a lost connection. The lead stops there and carries its conversation on here.',
  }, yes);
  return choice === yes ? true : CANCEL;
}

export const LEAD_COMMANDS: CommandSpec[] = [spec({
  id: TAKE_OVER_LEAD, title: 'Take Over Lead', runsAgents: true,
  fields: [{ key: 'confirmed', ask: confirmTakeOver }],
  schema: z.object({ confirmed: z.literal(true) }),
  async run(_a, ctx) {
    const session = await ctx.agents();
    const from = await session.takeOverLead();
    ctx.refresh();
    void vscode.window.showInformationMessage(from ? 'Agent Teams: the lead runs in this window now.' : 'Agent Teams: the lead already runs in this window.');
    return from;
  },
})];
