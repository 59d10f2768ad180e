// Status bar item: who is working, total tokens, and Restricted Mode; click to open the team.
import * as vscode from 'vscode';
import { formatTokens, teamCost, teamTokens } from '../../core/session';
import type { TeamHost } from '../host/team-host';
import type { SandboxReport } from '../../core/session';
import { sandboxWords } from './sandbox-words';
import { leadStatus } from './team/member-row';
import type { Activity } from '../../core/session';

export class TeamStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentTeams.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subs: vscode.Disposable[] = [];

  constructor(
    private readonly host: TeamHost, private readonly defaultModel: () => string, private readonly sandbox: () => SandboxReport | undefined = () => undefined,
    /** The lead's activity: it counts as working or idle like a teammate (it has no roster status). */
    private readonly lead: () => Activity | undefined = () => undefined,
  ) {
    this.item.name = 'Agent Teams';
    this.item.command = 'agentTeams.team.focus';
    this.subs.push(host.onDidChange((k) => { if (k.has('roster') || k.has('activity')) void this.update(); }));
    this.subs.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.update()));
  }

  async update(): Promise<void> {
    const config = await this.host.view.roster().catch(() => undefined);
    const members = config?.members ?? [];
    const has = await this.host.hasTeam();
    if (!has && vscode.workspace.isTrusted) {
      this.item.hide();
      return;
    }
    const leadWorks = leadStatus(this.lead()) === 'working';
    const working = members.filter((m) => m.status === 'working').length + (leadWorks ? 1 : 0);
    const idle = members.filter((m) => m.status === 'idle').length + (leadWorks ? 0 : 1);
    const tokens = teamTokens(config);
    // "+ price unknown" when some spend is on a model we cannot price, as in the tree.
    const cost = teamCost(config, this.defaultModel());
    const restricted = !vscode.workspace.isTrusted;
    const words = restricted ? 'Restricted Mode' : `${working} working, ${idle} idle`;
    this.item.text = `$(${restricted ? 'shield' : working ? 'sync~spin' : 'organization'}) ${words} · ${formatTokens(tokens)} · ${cost}`;
    const sb = this.sandbox();
    this.item.tooltip = restricted
      ? 'Agent Teams: agents do not run in Restricted Mode.'
      : `Agent Teams: the lead and ${members.length} teammate${members.length === 1 ? '' : 's'}, ${working} working, ${idle} idle; ${tokens} tokens used (about ${cost})${sb ? `\nSandbox: ${sandboxWords(sb)} — ${sb.summary}` : ''}`;
    this.item.accessibilityInformation = { label: `Agent Teams: ${words}, ${formatTokens(tokens)}, about ${cost}` };
    this.item.show();
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    this.item.dispose();
  }
}
