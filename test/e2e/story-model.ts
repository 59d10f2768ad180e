// The fake model of the story e2e test (vscode-story.test.ts): how the lead, alice and bob
// answer, decided from each request's content — who asks (system prompt) and what its newest
// user turn says — never from call order, since agents call concurrently. Some answers wait
// on a gate the test opens once it has seen the state it checks.
import { reply, toolUse, type FakeApi, type RecordedRequest, type TurnSpec } from '../fake-api';
import { gate, newest } from './harness/model-text';

export const API_KEY = 'sk-ant-story-test-key';
export const ASK = 'Build the parser with alice and bob.';
export const PLAN_V1 = 'Plan v1: write parse() in src/parser.ts.';
export const FEEDBACK = 'Add tests before the code.';
export const PLAN_V2 = 'Plan v2: tests first, then parse() in src/parser.ts.';
export const ALICE_TO_BOB = 'Schema is ready for your tests, bob.';
export const ALICE_TO_LEAD = 'Plan approved; implementing now.';
export const BOB_TO_ALICE = 'Thanks alice, writing the tests.';
export const BOB_TO_LEAD = 'Testing alice\'s schema.';
export const USER_TO_BOB = 'bob, please also cover the error paths.';
export const USER_TO_ALICE = 'alice, please write docs.md before you stop.';
export const DOCS_DONE = 'docs.md is written.';

export class StoryModel {
  readonly spawnSeen = gate();
  /** Per task: the fake model finishes it only once the test has seen it in progress. */
  readonly taskGates = new Map([[1, gate()], [2, gate()]]);
  readonly resumeSeen = gate();
  /** Task ids in the order the fake model completed them, with who did it and when. */
  readonly completed: Array<{ id: number; by: string; at: number }> = [];
  /** When each task's first "you claimed" request arrived. */
  readonly claimedAt = new Map<number, number>();
  /** Set just before the window reloads: alice's held request is answered only after it. */
  reloadAt = Infinity;

  install(api: FakeApi): void {
    api.setDefault(async (r) => {
      if (r.agent === 'lead') return this.lead(r);
      if (r.agent === 'alice') return this.alice(r);
      if (r.agent === 'bob') return this.bob(r);
      return `unexpected agent ${r.agent}`;
    });
  }

  /** Lets every held answer go (teardown). */
  release(): void {
    this.spawnSeen.open();
    for (const g of this.taskGates.values()) g.open();
    this.resumeSeen.open();
  }

  private async worker(agent: string, text: string): Promise<TurnSpec | undefined> {
    const m = /Task #(\d+) was assigned to you automatically/.exec(text) ?? /Resume your task #(\d+)/.exec(text);
    if (!m) return undefined;
    const id = Number(m[1]);
    if (!this.claimedAt.has(id)) this.claimedAt.set(id, Date.now());
    await this.taskGates.get(id)?.promise;
    this.completed.push({ id, by: agent, at: Date.now() });
    return reply(`Done with task #${id}.`, toolUse('task_update', { task_id: id, status: 'completed' }), toolUse('idle', {}));
  }

  private shutdown(text: string): TurnSpec | undefined {
    const m = /type="shutdown_request" request_id="([^"]+)"/.exec(text);
    return m ? reply(toolUse('shutdown_response', { request_id: m[1], approve: true, reason: 'Work is done.' })) : undefined;
  }

  private lead(r: RecordedRequest): TurnSpec {
    if (r.body.messages.length === 1 && newest(r).includes(ASK)) {
      return reply('Spawning the team.',
        toolUse('spawn_teammate', { name: 'alice', role: 'backend engineer', prompt: 'Submit a plan for the parser first.' }),
        toolUse('spawn_teammate', { name: 'bob', role: 'tester', prompt: 'Wait for alice, then test.' }));
    }
    return 'Noted.';
  }

  private async alice(r: RecordedRequest): Promise<TurnSpec> {
    const text = newest(r);
    const done = this.shutdown(text) ?? await this.worker('alice', text);
    if (done) return done;
    if (text.includes(USER_TO_ALICE)) {
      // Held (never answered) until the window reloads; the resumed alice asks again.
      if (r.receivedAt < this.reloadAt) return { type: 'hang' };
      await this.resumeSeen.promise;
      return reply(toolUse('write_file', { path: 'docs.md', content: '# Parser\n' }),
        toolUse('send_message', { to: 'lead', content: DOCS_DONE }), toolUse('idle', {}));
    }
    if (/type="plan_approval_response"[^>]*approve="false"/.test(text)) {
      return reply(toolUse('plan_approval', { plan: PLAN_V2 }), toolUse('idle', {}));
    }
    if (/type="plan_approval_response"[^>]*approve="true"/.test(text)) {
      return reply(toolUse('send_message', { to: 'bob', content: ALICE_TO_BOB }),
        toolUse('send_message', { to: 'lead', content: ALICE_TO_LEAD }), toolUse('idle', {}));
    }
    if (r.body.messages.length === 1) {
      await this.spawnSeen.promise;
      return reply(toolUse('plan_approval', { plan: PLAN_V1 }), toolUse('idle', {}));
    }
    return reply(toolUse('idle', {}));
  }

  private async bob(r: RecordedRequest): Promise<TurnSpec> {
    const text = newest(r);
    const done = this.shutdown(text) ?? await this.worker('bob', text);
    if (done) return done;
    if (text.includes(USER_TO_BOB)) return reply('Will do.', toolUse('idle', {}));
    if (text.includes('from="alice"')) {
      return reply(toolUse('send_message', { to: 'alice', content: BOB_TO_ALICE }),
        toolUse('send_message', { to: 'lead', content: BOB_TO_LEAD }), toolUse('idle', {}));
    }
    if (r.body.messages.length === 1) {
      await this.spawnSeen.promise;
      return reply(toolUse('idle', {}));
    }
    return reply(toolUse('idle', {}));
  }
}
