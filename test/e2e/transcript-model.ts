// The fake model of the transcript e2e test (vscode-transcript.test.ts): the lead starts wes,
// who submits a plan, then (once approved) runs a bash command that waits for the test's
// go-ahead and prints HTML meant to run script, edits a file, writes another, and idles.
// Answers are decided from each request's content, never from call order.
import { reply, toolUse, type FakeApi, type RecordedRequest, type TurnSpec } from '../fake-api';
import { newest } from './harness/model-text';

export const API_KEY = 'sk-ant-transcript-test-key';
export const ASK = 'Start wes on the checks.';
export const WES_PROMPT = 'Plan the checks, then run them.';
export const PLAN = 'Plan: run the checks, then fix notes.txt.';
/** The file the test creates to let wes's first command finish (so it is seen running first). */
export const GO_FILE = 'go.txt';
/** Set by any of the injected scripts if one ever ran in the panel. */
export const XSS_MARK = '__transcriptXss';
/** Printed by the command: only the shell computes 42, so the input never contains it. */
export const RESULT_MARK = 'RESULT-42';
export const CMD_WAIT = `while [ ! -f ${GO_FILE} ]; do sleep 0.2; done; `
  + `echo 'html: <img src=x onerror="window.${XSS_MARK}=1"> <script>window.${XSS_MARK}=2</script>'; echo "RESULT-$((6*7))"`;
/** Model text with raw HTML in it: sanitised markdown must show it as text. */
export const APPROVED_TEXT = `Plan approved, running the checks <img src=x onerror="window.${XSS_MARK}=3">.`;
export const NOTES_BEFORE = 'alpha\n';
export const NOTES_AFTER = 'beta\n';
export const HAND_FILE = 'hand.txt';
export const HAND_BY_WES = 'written by wes\n';
export const HAND_TEXT = 'Now the hand file.';

export class TranscriptModel {
  install(api: FakeApi): void {
    api.setDefault((r) => {
      if (r.agent === 'lead') return this.lead(r);
      if (r.agent === 'wes') return this.wes(r);
      return `unexpected agent ${r.agent}`;
    });
  }

  private lead(r: RecordedRequest): TurnSpec {
    if (newest(r).includes(ASK)) return reply(toolUse('spawn_teammate', { name: 'wes', role: 'checker', prompt: WES_PROMPT }));
    return 'Noted.';
  }

  private wes(r: RecordedRequest): TurnSpec {
    const text = newest(r);
    if (text.includes(WES_PROMPT)) return reply('Submitting my plan.', toolUse('plan_approval', { plan: PLAN }), toolUse('idle', {}));
    if (/type="plan_approval_response"[^>]*approve="true"/.test(text)) return reply(APPROVED_TEXT, toolUse('bash', { command: CMD_WAIT }));
    // Three tool calls in a row with no words between: one line in summary mode.
    if (text.includes(RESULT_MARK)) {
      return reply(toolUse('edit_file', { path: 'notes.txt', old_text: 'alpha', new_text: 'beta' }), toolUse('bash', { command: 'echo CHECKED' }));
    }
    if (text.includes('CHECKED')) return reply(HAND_TEXT, toolUse('write_file', { path: HAND_FILE, content: HAND_BY_WES }), toolUse('idle', {}));
    return reply(toolUse('idle', {}));
  }
}
