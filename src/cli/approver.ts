// Bash approval at the prompt (policy `ask`): y = allow once, a = always allow this exact
// command for the session, n (or Enter) = deny. Questions from several agents are asked
// one after another, never on top of each other; a cancelled turn (its signal) denies.
import type { Approver, BashDecision } from '../core/runtime/types';
import type { Terminal } from './terminal';

export class PromptApprover implements Approver {
  private always = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly term: Terminal) {}

  bash(agent: string, command: string, signal: AbortSignal): Promise<BashDecision> {
    const next = this.queue.then(() => this.ask(agent, command, signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async ask(agent: string, command: string, signal: AbortSignal): Promise<BashDecision> {
    if (this.always.has(command)) return 'allow';
    this.term.print(`${agent} wants to run a shell command:\n    ${command.split('\n').join('\n    ')}`);
    for (;;) {
      const answer = await this.term.ask('Allow? [y]es / [a]lways this command / [N]o:', signal, isAnswer);
      if (answer === null) return 'deny';
      const a = answer.trim().toLowerCase();
      if (a === 'y' || a === 'yes') return 'allow';
      if (a === 'a' || a === 'always') {
        this.always.add(command);
        return 'allow';
      }
      if (a === '' || a === 'n' || a === 'no') return 'deny';
      this.term.print('Please answer y, a or n.');
    }
  }
}

const ANSWERS = new Set(['', 'y', 'yes', 'a', 'always', 'n', 'no']);
/** Lines that answer the question; anything else typed meanwhile is a command or a prompt. */
const isAnswer = (line: string): boolean => ANSWERS.has(line.trim().toLowerCase());
