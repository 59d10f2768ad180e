#!/usr/bin/env node
// `npm run package`: production bundles (minified, no source maps) and a .vsix in the repo
// root. Everything the extension needs is bundled, so vsce runs with --no-dependencies.
// Usage: node scripts/package.mjs [--out <file.vsix>]  — prints the .vsix path last.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provisionCrossCompiler } from './build-netbridge.mjs';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd, args) {
  return new Promise((done, fail) => {
    // stdin closed: vsce must never wait for an answer (CI has no terminal).
    const child = spawn(cmd, args, { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', fail);
    child.on('exit', (code, signal) => (code === 0 ? done() : fail(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? code})`))));
  });
}

export async function packageExtension(out) {
  const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8'));
  const vsix = resolve(out ?? join(repo, `${pkg.name}-${pkg.version}.vsix`));
  // The containers' network bridge for both architectures (docs/containers.md, "Network").
  await provisionCrossCompiler();
  // .vscodeignore is an allowlist (the bundles and media/), so nothing else in dist/ ships.
  await run(process.execPath, ['esbuild.mjs', '--production']);
  const vsce = join(repo, 'node_modules', '@vscode', 'vsce', 'vsce');
  await run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license',
    '--no-update-package-json', '--readme-path', 'media/README.md', '--out', vsix]);
  return vsix;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--out');
  packageExtension(i > 0 ? process.argv[i + 1] : undefined)
    .then((vsix) => console.log(vsix))
    .catch((err) => { console.error(`package: ${err.message}`); process.exit(1); });
}
