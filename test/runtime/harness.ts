// A team session with its agents over a temp workspace, talking to the scripted fake
// Messages API through the real SDK.
import { TeamSession, type AgentOptions, type TeamSessionOptions } from '../../src/core/session/team-session';
import type { Approver, BashDecision, BashQuestion, RuntimeEvent, RuntimeSettings } from '../../src/core/runtime/types';
import { createModelClient, createModelFactory } from '../../src/core/model';
import { startFakeApi, type FakeApi } from '../fake-api';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { tempDir } from '../helpers/tmp';

/** Everything a session with agents is started with, in one object. */
export type RuntimeOptions = TeamSessionOptions & AgentOptions;

/** A session whose agents run here, from flat options. */
export function startSession(o: RuntimeOptions): Promise<TeamSession> {
  const { root, settings, hostId, worktrees, ...agents } = o;
  return TeamSession.start({ root, settings, hostId, worktrees, agents });
}

export interface Harness {
  api: FakeApi;
  rt: TeamSession;
  root: string;
  events: RuntimeEvent[];
  bashAsks: string[];
  /** Why each bash call was asked about, and the rules offered (same order as bashAsks). */
  bashQuestions: Array<BashQuestion | undefined>;
  restart(opts?: Partial<RuntimeOptions>): Promise<TeamSession>;
}

type Ctx = Parameters<typeof tempDir>[0];

export const TEST_SETTINGS: Partial<RuntimeSettings> = {
  idlePollSeconds: 2,
  idleTimeoutSeconds: 0,
  bashPolicy: 'allow',
  maxRounds: 20,
  // Commands run in the sandbox where the machine has one, but ask as the rules say: tests of
  // asking less set autoAllow themselves (test/runtime/sandbox*.test.ts).
  sandbox: { mode: 'auto', allowedDomains: [], autoAllow: false },
};

export function modelsFor(api: FakeApi, caching = true): RuntimeOptions['models'] {
  return (model, onStatus) =>
    createModelClient({ apiKey: 'sk-test-secret', baseURL: api.url, model, caching, onStatus, retry: { baseDelayMs: 20, maxDelayMs: 100, maxRetries: 3 } });
}

export async function harness(t: Ctx, settings: Partial<RuntimeSettings> = {}, bash: BashDecision = 'allow', approver: Partial<Approver> = {}): Promise<Harness> {
  const api = await startFakeApi();
  const root = await mkdtemp(join(tmpdir(), 'agent-teams-rt-'));
  const events: RuntimeEvent[] = [];
  const bashAsks: string[] = [];
  const bashQuestions: Array<BashQuestion | undefined> = [];
  const make = async (extra: Partial<RuntimeOptions> = {}) => {
    const rt = await startSession({
      root,
      settings: { ...TEST_SETTINGS, ...settings },
      models: modelsFor(api),
      approver: { bash: async (_a, cmd, _s, q) => (bashAsks.push(cmd), bashQuestions.push(q), bash), ...approver },
      ...extra,
    });
    rt.onEvent((e) => events.push(e));
    return rt;
  };
  const h: Harness = {
    api, root, events, bashAsks, bashQuestions,
    rt: await make(),
    async restart(extra) {
      h.rt = await make(extra);
      return h.rt;
    },
  };
  t.after(async () => {
    await h.rt.dispose();
    await api.close();
    await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  });
  return h;
}

/** The text of everything an agent's model was sent in request `i` (last by default). */
export function sentText(api: FakeApi, agent: string, i = -1): string {
  const reqs = api.requests(agent);
  const r = reqs.at(i);
  return r ? JSON.stringify(r.body.messages) : '';
}

/** Models of every provider a test server stands in for: Anthropic's fake API and the fake OpenAI server. */
export function mixedModels(api: FakeApi, openaiUrl: string, openaiKey = 'sk-openai-test-0123456789'): RuntimeOptions['models'] {
  return createModelFactory({
    anthropic: () => ({ apiKey: 'sk-test-secret', baseURL: api.url, keySource: 'env' }),
    openai: () => ({ apiKey: openaiKey, baseURL: openaiUrl }),
    retry: { baseDelayMs: 20, maxDelayMs: 100, maxRetries: 3 },
  });
}

/** Every tool result `agent`'s model was sent, in order (each once). */
export function toolResults(h: Pick<Harness, 'api'>, agent = 'lead'): string[] {
  const last = h.api.requests(agent).at(-1);
  const out: string[] = [];
  for (const m of (last?.body.messages ?? []) as Array<{ role: string; content: unknown }>) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content as Array<{ type: string; content?: unknown }>) {
      if (b.type === 'tool_result') out.push(typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
    }
  }
  return out;
}
