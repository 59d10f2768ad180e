// Which messages a view of the inbox shows: every message ("all", with a broadcast shown once
// for all its recipients) or one thread between two participants.
import { threadKey } from '../shared/webview-protocol';
import type { Message } from '../shared/schemas';

export const ALL = '*';

export function keyOf(m: Message): string {
  return threadKey(m.from, m.to);
}

/** Broadcast copies share sender, content and (nearly) time. */
export function broadcastKey(m: Message): string | undefined {
  return m.type === 'broadcast' ? `${m.from}\u0000${Math.round(m.timestamp)}\u0000${m.content}` : undefined;
}

export function threadLabel(key: string): string {
  const [a, b] = key.split('|');
  return `${a} ↔ ${b}`;
}

/** The thread to show for a participant: theirs with the user, else their first one. */
export function threadFor(name: string, keys: Iterable<string>): string {
  const list = [...keys];
  const withUser = threadKey(name, 'user');
  if (list.includes(withUser)) return withUser;
  return list.find((k) => k.split('|').includes(name)) ?? ALL;
}

export function inView(view: string, m: Message): boolean {
  return view === ALL || keyOf(m) === view;
}
