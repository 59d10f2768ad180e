// The composer: pick a participant, write, send as the user (button or Ctrl/Cmd+Enter).
import type { ParticipantInfo } from '../shared/webview-protocol';
import { button } from './render';

type Send = (to: string, content: string, done: (ok: boolean, error?: string) => void) => void;
/** What is being written, kept in the view's state so hiding the view loses nothing. */
export interface Draft { to: string; text: string }
type Field = HTMLElement & { value: string; disabled: boolean };

export class Composer {
  readonly root: HTMLFormElement;
  private readonly to: Field;
  private readonly text: Field;
  private readonly status: HTMLElement;
  private participants: ParticipantInfo[] = [];
  private recipient = 'lead';
  private sendButton!: HTMLElement;
  private sending = false;

  constructor(private readonly send: Send, private readonly onDraft: (d: Draft) => void = () => undefined) {
    this.root = document.createElement('form');
    this.root.className = 'composer';
    this.root.setAttribute('aria-label', 'Send a message as the user');
    this.to = document.createElement('vscode-single-select') as Field;
    this.to.setAttribute('aria-label', 'Recipient');
    this.to.addEventListener('change', () => {
      this.recipient = this.to.value;
      this.saveDraft();
    });
    this.text = document.createElement('vscode-textarea') as Field;
    this.text.setAttribute('aria-label', 'Message');
    this.text.setAttribute('placeholder', 'Message as user (Ctrl+Enter to send)');
    this.text.setAttribute('rows', '3');
    this.text.addEventListener('input', () => {
      this.saveDraft();
      this.updateButton();
    });
    this.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.submit();
      }
    });
    const sendButton = button('Send', false);
    this.sendButton = sendButton;
    sendButton.addEventListener('click', () => this.submit());
    this.status = document.createElement('p');
    this.status.className = 'status';
    this.status.setAttribute('role', 'status');
    const row = document.createElement('div');
    row.className = 'row';
    row.append(this.to, sendButton);
    this.root.append(this.text, row, this.status);
    this.root.addEventListener('submit', (e) => e.preventDefault());
    this.renderOptions();
    this.updateButton();
  }

  /**
   * Send is off while there is nothing to send or a send is under way: a click that lands
   * after a send (a fast double click) does nothing, and "Sent to …" stays.
   */
  private updateButton(): void {
    this.sendButton.toggleAttribute('disabled', this.sending || !(this.text.value ?? '').trim());
  }

  /** Puts back a draft saved before the view was hidden. */
  restore(d: Partial<Draft> | undefined): void {
    if (typeof d?.text === 'string') this.text.value = d.text;
    if (typeof d?.to === 'string' && d.to) this.setRecipient(d.to);
    this.updateButton();
  }

  private saveDraft(): void {
    this.onDraft({ to: this.recipient, text: this.text.value ?? '' });
  }

  setParticipants(list: ParticipantInfo[]): void {
    const live = list.filter((p) => p.status !== 'shutdown');
    // Roster writes come every few seconds (lease heartbeats); rebuilding the same options
    // would reset an open recipient list under the user's pointer.
    if (live.map((p) => p.name).join('\n') === this.participants.map((p) => p.name).join('\n')) return;
    this.participants = live;
    this.renderOptions();
  }

  setRecipient(name: string): void {
    if (name === 'user') return;
    this.recipient = name;
    this.renderOptions();
    this.saveDraft();
  }

  focus(): void {
    this.text.focus();
  }

  private renderOptions(): void {
    const names = ['lead', ...this.participants.map((p) => p.name)];
    if (!names.includes(this.recipient)) names.push(this.recipient);
    this.to.replaceChildren(...names.map((n) => {
      const o = document.createElement('vscode-option');
      o.setAttribute('value', n);
      o.textContent = n === 'lead' ? 'To lead' : `To ${n}`;
      // The select rebuilds its state from its options when they change (later, on slotchange),
      // so the recipient is marked on the option itself; the value set below alone is lost.
      if (n === this.recipient) o.setAttribute('selected', '');
      return o;
    }));
    this.to.value = this.recipient;
  }

  private submit(): void {
    const content = (this.text.value ?? '').trim();
    // One message per click, however fast the clicks come; an empty box sends nothing.
    if (this.sending || !content) return;
    const to = this.recipient;
    this.sending = true;
    this.text.disabled = true;
    this.updateButton();
    this.status.textContent = 'Sending…';
    this.send(to, content, (ok, error) => {
      this.sending = false;
      this.text.disabled = false;
      if (ok) {
        this.text.value = '';
        this.saveDraft();
        this.status.textContent = `Sent to ${to}.`;
      } else this.status.textContent = `Not sent: ${error ?? 'unknown error'}`;
      this.updateButton();
      this.text.focus();
    });
  }
}
