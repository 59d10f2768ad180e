// Extension-host module for bench/vscode.bench.ts: times the activation of the extension
// (loading its bundle and running activate()) with the real vscode API, and reports it on the
// console, which the bench reads through the page. Then, when the extension says when its
// engine is in (`api.ready`), how long after activation began the views could show rows.
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension('agent-teams.agent-teams');
  if (!ext) throw new Error('agent-teams.agent-teams is not installed');
  if (ext.isActive) throw new Error('already active: the measurement would be empty');
  const t0 = performance.now();
  const api = (await ext.activate()) as { activateMs?: number; ready?: Promise<unknown> };
  const ms = performance.now() - t0;
  console.log(`ACTIVATION_MS ${ms.toFixed(3)} ACTIVATE_FN_MS ${(api.activateMs ?? NaN).toFixed(3)}`);
  if (api.ready) {
    await api.ready;
    console.log(`READY_MS ${(performance.now() - t0).toFixed(3)}`);
  }
}
