// Stop, SubagentStop and TeammateIdle (docs/hooks.md): when an agent's work phase ends —
// the lead's turn, a teammate's phase before it goes idle — these hooks may say it is not
// done yet (exit 2, or `decision: "block"`): their feedback goes to the agent as a new
// message and it works on. Blocks in a row are capped (MAX_HOOK_CONTINUES), so a hook that
// always blocks costs a few more phases, never an endless loop.
import { hookAgent, type HookedAgent } from './tool-hooks';
import type { Hooks } from './hooks';

/** After this many blocks in a row the agent stops anyway (and the user is told). */
export const MAX_HOOK_CONTINUES = 3;

export type StopEvent = 'Stop' | 'SubagentStop' | 'TeammateIdle';

export interface StopGate<PhaseEnd extends string> {
  agent: Pick<HookedAgent, 'name' | 'cwd' | 'transcript'>;
  hooks: Hooks | undefined;
  events: readonly StopEvent[];
  runPhase(): Promise<PhaseEnd>;
  /** Hands the hook's feedback to the agent (a new user-side message). */
  carryOn(text: string): Promise<void>;
  warn(message: string): void;
}

/** `PhaseEnd`: how a phase ended (runtime/agent.ts); only 'end_turn' and 'idle' are asked about. */
export async function phaseWithStopHooks<PhaseEnd extends string>(g: StopGate<PhaseEnd>): Promise<PhaseEnd> {
  let blocks = 0;
  for (;;) {
    const end = await g.runPhase();
    if ((end !== 'end_turn' && end !== 'idle') || !g.hooks) return end;
    let said: { event: StopEvent; feedback: string } | null = null;
    for (const event of g.events) {
      if (!g.hooks.has(event)) continue;
      const extra = event === 'TeammateIdle' ? { teammate_name: g.agent.name, team_name: g.hooks.team } : {};
      const o = await g.hooks.run(event, hookAgent(g.agent), { stop_hook_active: blocks > 0, ...extra });
      if (o.blocked) {
        said = { event, feedback: o.feedback };
        break;
      }
    }
    if (!said) return end;
    if (blocks >= MAX_HOOK_CONTINUES) {
      g.warn(`${g.agent.name}: the ${said.event} hook blocked ${blocks + 1} times in a row; ${g.agent.name} stops anyway (at most ${MAX_HOOK_CONTINUES} in a row, docs/hooks.md).`);
      return end;
    }
    blocks++;
    await g.carryOn(`[${said.event} hook] You are not done yet:\n${said.feedback}`);
  }
}
