// The fake model of the approvals e2e test (vscode-approvals.test.ts): how the lead and the
// teammates sam (shell chores behind bash approvals), tim (a long command that is force-
// stopped) and uma (whose requests the API rejects with 401) answer. Answers are decided from
// each request's content — who asks and what its newest user turn says — never from call order.
import { fault, keyFingerprint, reply, toolUse, type FakeApi, type RecordedRequest, type TurnSpec } from '../fake-api';
import { allText, newest } from './harness/model-text';

export const API_KEY = 'sk-ant-approvals-test-key';
/** The key the user sets with Set API Key after the 401. */
export const NEW_KEY = 'sk-ant-approvals-new-key';
export const ASK_SAM = 'Start sam on the shell chores.';
export const ASK_UMA = 'Start uma on the report.';
/** The message waiting for vic, an idle teammate of a team that could not resume without a key. */
export const VIC_MAIL = 'Summarise the notes, vic.';
export const ASK_BUDGET = 'Write budget.txt, then check it.';
export const SAM_PROMPT = 'Run the three shell chores.';
export const TIM_PROMPT = 'Pick up the long job from the board.';

/** Each command appends its word to ran.txt, so the file tells which ones really ran. */
export const CMD_ALLOW = 'echo allowed >> ran.txt && echo OUT-ALLOWED';
export const CMD_DENY = 'echo denied >> ran.txt && echo OUT-DENIED';
export const CMD_ALWAYS = 'echo always >> ran.txt && echo OUT-ALWAYS';
/** Writes the shell's and its child's pids, then waits for a sleep that only a stop ends. */
// `sleep 417` is this command's own: the host finds it by that, as inside the sandbox the pids it
// writes are its pid namespace's.
export const CMD_LONG = 'echo $$ > long.pid; sleep 417 & echo $! > sleep.pid; wait';
export const DENIED = 'The user denied this command.';
/** Longer than a toast shows: asked in a modal dialog with the whole text; its end is a marker. */
export const CMD_LONG_TEXT = `echo long >> ran.txt && echo OUT-LONG # ${'padding '.repeat(35)}END-OF-LONG-COMMAND`;

export class ApprovalsModel {
  install(api: FakeApi): void {
    api.setDefault((r) => {
      switch (r.agent) {
        case 'lead': return this.lead(r);
        case 'sam': return this.sam(r);
        case 'tim': return this.tim(r);
        // uma's requests are refused the way the API refuses a bad key, until the user sets a new one.
        case 'uma': return r.keyFingerprint === keyFingerprint(NEW_KEY) ? reply('Report written.', toolUse('idle', {})) : fault.auth();
        case 'vic': return reply('Summary written.', toolUse('idle', {}));
        default: return `unexpected agent ${r.agent}`;
      }
    });
  }

  private lead(r: RecordedRequest): TurnSpec {
    const text = newest(r);
    if (text.includes(ASK_SAM)) return reply(toolUse('spawn_teammate', { name: 'sam', role: 'shell runner', prompt: SAM_PROMPT }));
    if (text.includes(ASK_UMA)) return reply(toolUse('spawn_teammate', { name: 'uma', role: 'reporter', prompt: 'Write the report.' }));
    if (text.includes(ASK_BUDGET)) return reply(toolUse('write_file', { path: 'budget.txt', content: 'spent\n' }));
    if (text.includes('budget.txt')) return 'budget.txt is written.';
    return 'Noted.';
  }

  /** Allow, Deny, Always allow, the always-allowed command once more, a long command, then idle. */
  private sam(r: RecordedRequest): TurnSpec {
    const text = newest(r);
    const shutdown = /type="shutdown_request" request_id="([^"]+)"/.exec(text);
    if (shutdown) return reply(toolUse('shutdown_response', { request_id: shutdown[1], approve: true, reason: 'Chores done.' }));
    if (text.includes(SAM_PROMPT)) return reply(toolUse('bash', { command: CMD_ALLOW }));
    if (text.includes('The user restarted you')) return reply('BACK-AGAIN: the chores are done already.', toolUse('idle', {}));
    if (text.includes('OUT-ALLOWED')) return reply(toolUse('bash', { command: CMD_DENY }));
    if (text.includes(DENIED)) return reply(toolUse('bash', { command: CMD_ALWAYS }));
    if (text.includes('OUT-ALWAYS') && allText(r).split('OUT-ALWAYS').length - 1 === 1) return reply(toolUse('bash', { command: CMD_ALWAYS }));
    if (text.includes('OUT-ALWAYS')) return reply(toolUse('bash', { command: CMD_LONG_TEXT }));
    return reply(toolUse('idle', {}));
  }

  /** Idles after spawning, claims the task on the board and runs the long command for it. */
  private tim(r: RecordedRequest): TurnSpec {
    if (/Task #\d+ was assigned to you automatically/.test(newest(r))) return reply('Starting the long job.', toolUse('bash', { command: CMD_LONG }));
    return reply(toolUse('idle', {}));
  }
}
