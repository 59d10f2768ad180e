// The inbox webview's page, kept free of the vscode API so its CSP can be unit-tested.
import { randomBytes } from 'node:crypto';

/** A fresh nonce for every render of the page. */
export function nonce(): string {
  return randomBytes(18).toString('base64');
}

/** The page: scripts only with this render's nonce, styles and fonts only from the bundle. */
export interface PageAssets {
  nonce: string;
  cspSource: string;
  script: string;
  style: string;
}

/** The head of every webview page here: the CSP, the stylesheet and the title. */
export function pageHead(o: PageAssets, title: string): string {
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${o.nonce}'`,
    `style-src ${o.cspSource} 'nonce-${o.nonce}'`,
    `font-src ${o.cspSource}`,
    `img-src ${o.cspSource} data:`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${o.nonce}" href="${o.style}">
<title>${title}</title>
</head>`;
}

export function inboxHtml(o: PageAssets): string {
  return `${pageHead(o, 'Inbox')}
<body>
<main id="app" aria-label="Agent Teams inbox"></main>
<script nonce="${o.nonce}" src="${o.script}"></script>
</body>
</html>`;
}
