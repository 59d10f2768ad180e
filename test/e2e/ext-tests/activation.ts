// Extension-host module for bench/vscode.bench.ts: times the activation of the extension
// (loading its bundle and running activate()) with the real vscode API, and reports it on the
// console, which the bench reads through the page.
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension('agent-teams.agent-teams');
  if (!ext) throw new Error('agent-teams.agent-teams is not installed');
  if (ext.isActive) throw new Error('already active: the measurement would be empty');
  const t0 = performance.now();
  const api = (await ext.activate()) as { activateMs?: number };
  const ms = performance.now() - t0;
  console.log(`ACTIVATION_MS ${ms.toFixed(3)} ACTIVATE_FN_MS ${(api.activateMs ?? NaN).toFixed(3)}`);
}
