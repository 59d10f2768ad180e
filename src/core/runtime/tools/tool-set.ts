// An agent's tools as one set: the array the model is sent, and the dispatcher that checks
// a call's input, applies the plan gate, runs the handler and caps its output. A bad call
// or a failing handler becomes an error result for the model; nothing throws out of here.
import type { ModelTool } from '../../model';
import { fail, MAX_OUTPUT, type AgentHandle, type ToolDefinition, type ToolHost, type ToolResult } from './definition';

export class ToolSet {
  private readonly byName = new Map<string, ToolDefinition>();
  /** What the model is sent, in the order given. */
  readonly definitions: ModelTool[];

  constructor(tools: readonly ToolDefinition[]) {
    for (const t of tools) {
      if (this.byName.has(t.name)) throw new Error(`Two tools named "${t.name}" in one agent's set.`);
      this.byName.set(t.name, t);
    }
    this.definitions = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema() }));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * Before a reply's calls run: each tool with a `beforeReply` sees its calls of the reply
   * (the inputs that parse), in the order the tools were first called. Unlike `run`, what
   * it throws ends the phase, as a failed model call would.
   */
  async beforeReply(calls: readonly { name: string; input: unknown }[], a: AgentHandle, h: ToolHost): Promise<void> {
    const inputs = new Map<ToolDefinition, unknown[]>();
    for (const c of calls) {
      const tool = this.byName.get(c.name);
      if (!tool?.beforeReply) continue;
      const parsed = tool.parse(c.input ?? {});
      const list = inputs.get(tool) ?? [];
      if (parsed.ok) list.push(parsed.data);
      inputs.set(tool, list);
    }
    for (const [tool, list] of inputs) await tool.beforeReply!(list, a, h);
  }

  async run(name: string, input: unknown, a: AgentHandle, h: ToolHost): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) return fail(`You have no tool named "${name}". Your tools: ${[...this.byName.keys()].join(', ')}.`);
    const parsed = tool.parse(input ?? {});
    if (!parsed.ok) return fail(`Invalid input for ${name}: ${parsed.error}`);
    try {
      const refusal = tool.changesWorkspace ? await a.planRefusal(name) : null;
      if (refusal) return fail(refusal);
      const r = await tool.run(parsed.data, a, h);
      return r.text.length > MAX_OUTPUT * 2 ? { ...r, text: r.text.slice(0, MAX_OUTPUT * 2) + '\n[... truncated]' } : r;
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err));
    }
  }
}
