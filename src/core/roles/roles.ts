// What a teammate's role fixes at spawn and on every start: its agent definition (model,
// tools, instructions), its model and whether it starts in plan mode. The roster keeps the
// model, the tool list and the plan mode, so a reload or another host enforces the same.
import type { Member } from '../../shared/schemas';
import { toolsWhere } from '../../shared/tool-facts';
import { loadAgentDefinitions, type AgentDefinition, type Definitions } from './agent-definitions';
import { resolveModel } from './models';
import { newPlanMode } from './plan-mode';
import { BUILTIN_TOOLS, toolsFor } from '../runtime/tools';

export type RequirePlan = 'never' | 'always';

/** Tools every teammate keeps whatever its definition lists: without them it cannot take part in the team. */
export const TEAM_TOOLS: ReadonlySet<string> = new Set(toolsWhere((f) => f.team));

/** Workspace tools named by the product (docs/file-formats.md, "Agent definitions"), present or coming. */
const WORKSPACE_TOOLS = toolsWhere((f) => f.workspace);

/** Names a definition's `tools` may use: the teammate's tools plus the named workspace tools. */
export function knownTeammateTools(teammateToolNames: Iterable<string>): Set<string> {
  return new Set([...teammateToolNames, ...WORKSPACE_TOOLS]);
}

/** Reads the definitions as every host and the CLI check them. */
export function loadTeamDefinitions(root: string, teamModel: string): Promise<Definitions> {
  return loadAgentDefinitions(root, { knownTools: knownTeammateTools(toolsFor('teammate', BUILTIN_TOOLS.map((t) => t.name)).map((t) => t.name)), teamModel });
}

/** Whether a tool may be offered to a member whose definition allows `allowed` (null = all). */
export function toolAllowed(modelName: string, allowed: readonly string[] | null | undefined): boolean {
  return !allowed || TEAM_TOOLS.has(modelName) || allowed.includes(modelName);
}

export class RoleError extends Error {}

export interface RoleRequest {
  agent_type?: string | null;
  model?: string | null;
  plan_mode_required?: boolean | null;
}

export interface RoleSettings {
  model: string;
  requirePlan: RequirePlan;
}

/**
 * The roster fields a spawn writes for its role. An explicit `model` beats the definition's;
 * an unknown agent type or model is an error the spawner sees. Fields are written even when
 * empty, so a re-spawn does not inherit the previous incarnation's role.
 */
export function roleFields(req: RoleRequest, def: AgentDefinition | undefined, s: RoleSettings, by: string): Partial<Member> {
  const model = resolveModel(req.model, s.model);
  if (!model.ok) throw new RoleError(model.error);
  const planned = req.plan_mode_required ?? s.requirePlan === 'always';
  return {
    model: model.model ?? def?.model,
    agent_type: def?.name ?? null,
    tools: def?.tools ?? null,
    plan_mode: planned ? newPlanMode(by) : null,
  };
}

/** Finds the definition named `type`, with the reason it cannot be used. */
export function findDefinition(defs: Definitions, type: string): AgentDefinition {
  const def = defs.definitions.find((d) => d.name === type);
  if (def) return def;
  const broken = defs.problems.filter((p) => p.path.endsWith(`/${type}.md`));
  const known = defs.definitions.map((d) => d.name).join(', ') || 'none';
  throw new RoleError(`unknown agent type "${type.slice(0, 40)}"${broken.length ? ` (${broken[0]!.path}: ${broken[0]!.message})` : ''}; available: ${known}`);
}

/** The role instructions a started teammate's system prompt gets from its definition. */
export function definitionPrompt(def: AgentDefinition | undefined): string {
  return def?.body ? `\n\nInstructions for your role (${def.name}, from ${def.path}):\n${def.body}` : '';
}
