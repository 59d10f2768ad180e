// The sandbox's state as the Team view (team/sandbox-row.ts) and the status bar show it
// (docs/security.md): the report is read when the window starts and again when a setting
// changes; it lives in memory like activity.
import type * as vscode from 'vscode';
import type { SandboxReport, TeamSession } from '../../core/session';

export class SandboxStatus {
  report: SandboxReport | undefined;

  constructor(private readonly session: Pick<TeamSession, 'sandboxReport'>, private readonly changed: () => void, private readonly log: vscode.LogOutputChannel) {}

  async refresh(): Promise<void> {
    try {
      this.report = await this.session.sandboxReport();
      this.changed();
    } catch (e) {
      this.log.warn(`could not read the sandbox's state: ${String(e)}`);
    }
  }
}
