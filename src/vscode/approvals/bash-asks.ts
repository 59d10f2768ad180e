// Bash approvals still open, so the agent's transcript panel can answer them inline beside
// the notification (approver.ts); whichever answer comes first wins.
import * as vscode from 'vscode';
import type { BashDecision } from '../../core/session';

export interface BashAsk {
  id: string;
  agent: string;
  command: string;
}

export class BashAsks implements vscode.Disposable {
  private readonly open = new Map<string, BashAsk & { answer(d: BashDecision): void }>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private seq = 0;

  /** Every open question, of any agent (the @team chat offers them all). */
  all(): BashAsk[] {
    return [...this.open.values()].map(({ id, agent, command }) => ({ id, agent, command }));
  }

  list(agent: string): BashAsk[] {
    return [...this.open.values()].filter((a) => a.agent === agent).map(({ id, command }) => ({ id, agent, command }));
  }

  /** Answers an open question; false when it was answered already. */
  answer(id: string, d: BashDecision): boolean {
    const a = this.open.get(id);
    a?.answer(d);
    return !!a;
  }

  /** Registers a question; `answered` settles with the panel's answer (as a button label). */
  add(agent: string, command: string): { answered: Promise<'Allow' | 'Deny'>; done(): void } {
    const id = `b${++this.seq}`;
    let answer!: (d: BashDecision) => void;
    const decided = new Promise<BashDecision>((r) => (answer = r));
    this.open.set(id, { id, agent, command, answer });
    this.changed.fire();
    return {
      answered: decided.then((d) => (d === 'allow' ? 'Allow' : 'Deny')),
      done: () => {
        if (this.open.delete(id)) this.changed.fire();
      },
    };
  }

  dispose(): void {
    this.changed.dispose();
  }
}
