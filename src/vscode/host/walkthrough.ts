// The Get Started walkthrough's ticks (package.json `contributes.walkthroughs`). VS Code creates
// its walkthrough service only when a Welcome or walkthrough page first needs it, and that
// service counts a step's completion event only as it happens while the service exists: a
// context key already true when it reads the walkthrough, a command run or a view shown
// before, never tick the step. So the extension reports its own completion events — a context
// key it sets true, a command of its own that ran, its Team view shown — and ticks the steps
// that name them itself, through VS Code's `welcome.markStepComplete` (README.md, Get Started).
import * as vscode from 'vscode';

interface Manifest { contributes?: { walkthroughs?: { id: string; steps: { id: string; completionEvents?: string[] }[] }[] } }

/** The steps each completion event completes, named as VS Code names them: `<extension id>#<walkthrough id>#<step id>`. */
export function stepsByEvent(extensionId: string, manifest: unknown): Map<string, string[]> {
  const byEvent = new Map<string, string[]>();
  for (const w of (manifest as Manifest).contributes?.walkthroughs ?? []) {
    for (const step of w.steps) {
      for (const event of step.completionEvents ?? []) byEvent.set(event, [...(byEvent.get(event) ?? []), `${extensionId}#${w.id}#${step.id}`]);
    }
  }
  return byEvent;
}

let steps = new Map<string, string[]>();
let log: vscode.LogOutputChannel | undefined;
/** Ticked in this window: VS Code keeps a tick in the profile, so once is enough. */
const ticked = new Set<string>();

/** Reads the walkthrough's steps from the extension's manifest; until then events tick nothing. */
export function trackWalkthrough(extension: { id: string; packageJSON: unknown }, channel: vscode.LogOutputChannel): void {
  steps = stepsByEvent(extension.id, extension.packageJSON);
  log = channel;
}

/** A completion event happened in this window (`onContext:<key>`, `onCommand:<id>`, `onView:<id>`): tick its steps. */
export function walkthroughEvent(event: string): void {
  for (const id of steps.get(event) ?? []) {
    if (ticked.has(id)) continue;
    ticked.add(id);
    // The service stores the tick before it looks the step up, so when it has not read our
    // walkthrough yet (it does within 5 s of its creation) the command fails and the tick stays.
    void vscode.commands.executeCommand('welcome.markStepComplete', id)
      .then(undefined, (err: unknown) => log?.trace(`walkthrough step ${id}: ${err instanceof Error ? err.message : String(err)}`));
  }
}

/** Sets one of the extension's context keys; turning it true is the walkthrough's `onContext:<key>`. */
export async function setContext(key: string, value: unknown): Promise<void> {
  await vscode.commands.executeCommand('setContext', key, value);
  if (value === true) walkthroughEvent(`onContext:${key}`);
}
