// The runtime's events (activity, text, tool calls, usage, notices) to the host's listeners.
// A broken listener never breaks an agent, and notices raised while the runtime starts —
// before the host could subscribe (resume problems) — are replayed to each new listener.
import type { Disposable } from '../team/dir-watcher';
import type { RuntimeEvent } from './types';

type Listener = (e: RuntimeEvent) => void;

export class EventHub {
  private readonly listeners = new Set<Listener>();
  private starting = true;
  private readonly startupNotices: RuntimeEvent[] = [];

  on(listener: Listener): Disposable {
    for (const e of this.startupNotices) callSafely(listener, e);
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  emit(e: RuntimeEvent): void {
    if (this.starting && e.type === 'notice') this.startupNotices.push(e);
    for (const l of this.listeners) callSafely(l, e);
  }

  /** Start-up is over: later notices reach only the listeners there are. */
  started(): void {
    this.starting = false;
  }
}

function callSafely(listener: Listener, e: RuntimeEvent): void {
  try {
    listener(e);
  } catch {
    // a broken listener must not break an agent
  }
}
