// Model text → sanitised DOM. marked renders markdown with raw HTML turned into visible text
// (never markup), then DOMPurify keeps only a small allowlist of formatting tags; links are
// http(s)/mailto only and are opened by the host, not by the webview.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESC[c]!);

const marked = new Marked({ gfm: true, breaks: true, async: false });
marked.use({
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    // Remote images are blocked by the CSP anyway; show them as links instead.
    image: (token: Tokens.Image) => `<a href="${escapeHtml(token.href)}">${escapeHtml(token.text || token.href)}</a>`,
  },
});

const ALLOWED_TAGS = ['a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li',
  'ol', 'p', 'pre', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul', 'input', 's'];

const purify = DOMPurify(window);
purify.addHook('uponSanitizeAttribute', (node, data) => {
  // Task-list checkboxes are the only inputs marked emits; keep them inert.
  if (node.nodeName === 'INPUT' && data.attrName !== 'type' && data.attrName !== 'checked' && data.attrName !== 'disabled') data.keepAttr = false;
});
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName === 'INPUT') {
    if ((node as HTMLInputElement).type !== 'checkbox') node.remove();
    else node.setAttribute('disabled', '');
  }
});

export function renderMarkdown(src: string): DocumentFragment {
  const html = marked.parse(src) as string;
  return purify.sanitize(html, {
    ALLOWED_TAGS, ALLOWED_ATTR: ['href', 'title', 'type', 'checked', 'disabled', 'start', 'align'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i, RETURN_DOM_FRAGMENT: true,
  });
}
