// Which providers rejected their key (401/403): until the models are refreshed, their agents
// start no new work (a teammate does not pick tasks from the board only to fail again; mail
// still wakes it). Agents use it through AgentEnv.keys (agent-env.ts).
export interface KeyState {
  rejected(provider: string): boolean;
  noteRejected(provider: string): void;
}

export class RejectedKeys implements KeyState {
  private readonly providers = new Set<string>();

  rejected(provider: string): boolean {
    return this.providers.has(provider);
  }

  noteRejected(provider: string): void {
    this.providers.add(provider);
  }

  /** New model clients: every key is tried again. */
  clear(): void {
    this.providers.clear();
  }
}
