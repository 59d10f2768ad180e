// The "Agent Teams" LogOutputChannel (made at activation, extension.ts): engine problems
// (corrupt files, malformed lines) and runtime events land here, so nothing the core reports
// is lost while VS Code runs it.
import * as vscode from 'vscode';
import { onProblem, type RuntimeEvent } from '../../core/session';

/** At most one problem notification per this long; the rest are in the log. */
const NOTIFY_EVERY_MS = 60_000;

/**
 * Routes core problem reports to `log` until disposed, and says so in a notification (at most
 * one a minute): a corrupt roster moved aside otherwise just looks like "No team yet".
 */
export function routeProblems(log: vscode.LogOutputChannel): vscode.Disposable {
  let lastNotified = -Infinity;
  let unseen = 0;
  const sub = onProblem((p) => {
    log.warn(`${p.path}: ${p.message}`);
    unseen++;
    if (Date.now() - lastNotified < NOTIFY_EVERY_MS) return;
    lastNotified = Date.now();
    const more = unseen > 1 ? ` (and ${unseen - 1} more)` : '';
    unseen = 0;
    const file = vscode.workspace.asRelativePath(p.path);
    void vscode.window.showWarningMessage(`Agent Teams: a team file is damaged: ${file}: ${p.message}${more}`, 'Show Log')
      .then((b) => b && log.show(true));
  });
  return new vscode.Disposable(() => sub.dispose());
}

/** One log line per runtime event; chatty events go to trace/debug. */
export function logRuntimeEvent(log: vscode.LogOutputChannel, e: RuntimeEvent): void {
  switch (e.type) {
    case 'notice':
      log[e.level === 'info' ? 'info' : e.level === 'warning' ? 'warn' : 'error'](`${e.agent ? `[${e.agent}] ` : ''}${e.message}`);
      break;
    case 'text':
      log.debug(`[${e.agent}] ${e.text}`);
      break;
    case 'tool':
      log[e.isError ? 'warn' : 'debug'](`[${e.agent}] ${e.tool} ${truncate(JSON.stringify(e.input))} → ${truncate(e.result)}`);
      break;
    case 'activity':
      log.trace(`[${e.agent}] ${e.activity.kind}`);
      break;
    case 'usage':
      log.trace(`[${e.agent}] ${e.total} tokens`);
      break;
  }
}

function truncate(s: string | undefined, n = 400): string {
  if (s === undefined) return '';
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The message of anything thrown, for a notification. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
