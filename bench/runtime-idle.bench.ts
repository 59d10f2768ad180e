// runtime.idle_tokens (issue 3, SPEC §8): tokens the fake Messages API reports while 4
// teammates sit idle for 60 s (each called `idle`; idleTimeoutSeconds = 0 so none shuts down;
// idlePollSeconds = 5, the default fallback poll). Target 0.
// naive: a tutorial-style loop that asks the model every 5 s while idle — four of them, each
// re-sending the conversation our teammate had when it went idle (no caching, as in the
// tutorial), measured over the same 60 s window on a second fake server.
// Tunables (env): BENCH_RT_IDLE_SECONDS (60).
import Anthropic from '@anthropic-ai/sdk';
import { bench, note } from './lib/report';
import { reply, toolUse } from '../test/fake-api';
import { allIdle, API_KEY, inProcessApi, noteMachine, sleep, startRuntime, tokensOf } from './fixtures/runtime-common';

const SECONDS = process.env.BENCH_RT_IDLE_SECONDS ? Number(process.env.BENCH_RT_IDLE_SECONDS) : 60;
const TEAMMATES = 4;
const POLL_MS = 5000;

async function main(): Promise<void> {
  noteMachine();
  const api = await inProcessApi();
  // Teammates go idle; the lead (which has no idle tool) answers what wakes it in words and ends its turn.
  api.setDefault((r) => (r.agent === 'lead' ? 'Noted: the team is waiting.' : reply('Nothing to do yet.', toolUse('idle', {}))));
  const ours = await startRuntime(api.url, { idleTimeoutSeconds: 0, idlePollSeconds: POLL_MS / 1000 });
  const names = Array.from({ length: TEAMMATES }, (_, i) => `idle${i + 1}`);
  for (const name of names) await ours.rt.spawnTeammate({ name, role: 'on call', prompt: 'Wait until someone needs you.' });
  await allIdle(ours.rt, names);
  await sleep(500);

  // The naive loops re-send what our teammates sent last (same conversation, same tools).
  const naiveApi = await inProcessApi();
  naiveApi.setDefault(reply('Nothing to do yet.'));
  const client = new Anthropic({ apiKey: API_KEY, baseURL: naiveApi.url, maxRetries: 0 });
  const strip = <T>(v: T): T => JSON.parse(JSON.stringify(v, (k, x) => (k === 'cache_control' ? undefined : x))) as T;
  const bodies = names.map((n) => strip(api.requests(n).at(-1)!.body) as Anthropic.MessageCreateParamsNonStreaming & { stream?: boolean });
  let running = true;

  // The lead is woken once when the team goes quiet (their results): that wake is answered before the window.
  await sleep(1000);
  const before = api.usage();
  const lead0 = api.usage('lead');
  const start = Date.now();
  const naive = bodies.map(async (body) => {
    const { stream: _s, ...params } = body;
    for (let next = Date.now(); running; next += POLL_MS) {
      await sleep(Math.max(0, next - Date.now()));
      if (!running || Date.now() - start >= SECONDS * 1000) break;
      await client.messages.create(params);
    }
  });
  await sleep(SECONDS * 1000 - (Date.now() - start));
  running = false;
  const after = api.usage();
  const lead1 = api.usage('lead');
  const leadTokens = tokensOf(lead1) - tokensOf(lead0);
  const tokens = tokensOf(after) - tokensOf(before) - leadTokens;
  const requests = after.requests - before.requests - (lead1.requests - lead0.requests);
  await Promise.all(naive);
  const n = naiveApi.usage();
  const status = (await ours.rt.view.members()).map((m) => `${m.name}:${m.status}`).join(' ');
  note(`ours: ${TEAMMATES} idle teammates, ${SECONDS} s: ${requests} model requests, ${tokens} tokens (roster: ${status}); the lead, its quiet-team wake answered before: ${lead1.requests - lead0.requests} requests, ${leadTokens} tokens`);
  note(`naive: ${TEAMMATES} loops polling the model every ${POLL_MS / 1000} s: ${n.requests} requests, ${tokensOf(n)} tokens`);
  bench('runtime.idle_tokens', 'ours', { teammates: TEAMMATES, seconds: SECONDS, tokens, requests, lead_tokens: leadTokens, lead_requests: lead1.requests - lead0.requests });
  bench('runtime.idle_tokens', 'naive', { teammates: TEAMMATES, seconds: SECONDS, tokens: tokensOf(n), requests: n.requests });
  await ours.close();
  await api.close();
  await naiveApi.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
