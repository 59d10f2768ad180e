// The transcript panel's page, kept free of the vscode API so its CSP can be unit-tested. The
// same policy as the inbox: scripts only with this render's nonce, no inline handlers, styles
// only from the bundle, images only from the extension (remote ones are blocked).
import { pageHead, type PageAssets } from './inbox-html';

export function transcriptHtml(o: PageAssets): string {
  return `${pageHead(o, 'Transcript')}
<body>
<header>
  <strong id="agent"></strong>
  <span id="activity" role="status" aria-live="polite"></span>
  <span id="usage"></span>
  <span class="spacer"></span>
  <span id="modes" role="group" aria-label="View mode">
    <button data-mode="summary" aria-pressed="false" title="Text, mail, requests and errors; tool calls folded">Summary</button>
    <button data-mode="normal" aria-pressed="true" title="Every tool call with its result; long output folded">Normal</button>
    <button data-mode="verbose" aria-pressed="false" title="Full tool input and output">Verbose</button>
  </span>
  <button id="changes" title="Files this agent changed">Changes</button>
  <button id="stop" class="danger" hidden title="Stop this agent now">Stop</button>
</header>
<div id="skipped" class="note" hidden></div>
<main id="rows" aria-label="Transcript"></main>
<div id="empty" class="note" hidden>Nothing yet: the transcript appears here as the agent works.</div>
<section id="pending" hidden aria-label="Waiting for you"></section>
<footer>
  <div id="error" class="error" hidden role="alert"></div>
  <textarea id="message" rows="2" placeholder="Message this agent (Ctrl+Enter sends)" aria-label="Message"></textarea>
  <button id="send" class="primary">Send</button>
</footer>
<script nonce="${o.nonce}" src="${o.script}"></script>
</body>
</html>`;
}
