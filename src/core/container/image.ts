// Which image a teammate's container runs, and making sure the engine has it (docs/containers.md, "Engine
// and image"): the `container.image` setting, else the workspace's devcontainer — its `image`,
// or its `build.dockerfile` built once and tagged by the hash of what was built (Dockerfile and
// context), so an unchanged devcontainer is never built twice and a changed one always is —
// else a refusal naming both.
import { createHash } from 'node:crypto';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type Docker from 'dockerode';
import { parse as parseJsonc } from 'jsonc-parser';
import { LABEL_CONTENT } from './labels';

export type ImageSource =
  | { kind: 'image'; ref: string; from: 'setting' | 'devcontainer' }
  | { kind: 'build'; dockerfile: string; context: string; files: string[]; tag: string; hash: string };

/**
 * Only the file inside `.devcontainer/`, a control folder agents cannot write (docs/security.md):
 * a root `.devcontainer.json` is a file any agent's command may create, and would pick the image
 * and the Dockerfile the engine builds.
 */
const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json'];
/** A build context past this many files is refused: it would be hashed and sent on every check. */
const MAX_CONTEXT_FILES = 5000;
const SKIPPED = new Set(['.git', 'node_modules']);

export const NO_IMAGE = 'no container image: set `container.image` (agentTeams.container.image, or "container": {"image": …} in .team/settings.json) or add .devcontainer/devcontainer.json with "image" or "build": {"dockerfile": …}';

const inside = (top: string, p: string): boolean => p === top || p.startsWith(top + sep);

async function contextFiles(dir: string, base = dir, out: string[] = []): Promise<string[]> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (SKIPPED.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) await contextFiles(p, base, out);
    else if (e.isFile()) out.push(relative(base, p).split(sep).join('/'));
    if (out.length > MAX_CONTEXT_FILES) throw new Error(`the devcontainer's build context ${base} has over ${MAX_CONTEXT_FILES} files: point build.context at a smaller folder`);
  }
  return out;
}

/** The image to use for `root`, or why there is none. */
export async function resolveImageSource(root: string, image?: string): Promise<ImageSource | { refused: string }> {
  if (image) return { kind: 'image', ref: image, from: 'setting' };
  for (const name of DEVCONTAINER_FILES) {
    const path = join(root, name);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const json = parseJsonc(text) as { image?: unknown; build?: { dockerfile?: unknown; context?: unknown }; dockerFile?: unknown } | undefined;
    if (typeof json?.image === 'string' && json.image.trim()) return { kind: 'image', ref: json.image.trim(), from: 'devcontainer' };
    const dockerfileRel = json?.build?.dockerfile ?? json?.dockerFile;
    if (typeof dockerfileRel !== 'string') return { refused: `${name} has neither "image" nor "build.dockerfile"; ${NO_IMAGE}` };
    const here = dirname(path);
    // Real paths: a folder an agent replaced by a link must not lead the build out of the
    // workspace, and the Dockerfile, whose RUN lines the engine runs with its own network, is
    // one only you write (in .devcontainer/).
    const [top, dir] = await Promise.all([realpath(root).catch(() => resolve(root)), realpath(here).catch(() => here)]);
    const context = await realpath(resolve(here, typeof json?.build?.context === 'string' ? json.build.context : '.')).catch(() => null);
    const dockerfile = await realpath(resolve(here, dockerfileRel)).catch(() => null);
    if (!context || !dockerfile) return { refused: `${name}: its build.dockerfile or build.context does not exist` };
    if (!inside(top, context)) return { refused: `${name}: build.context leaves the workspace` };
    if (!inside(dir, dockerfile)) return { refused: `${name}: build.dockerfile must be inside .devcontainer/, which agents cannot write (a Dockerfile elsewhere in the workspace is theirs to change)` };
    const files = (await contextFiles(context)).sort();
    const hash = createHash('sha256');
    hash.update(`dockerfile\0${await readFile(dockerfile, 'utf8')}\0`);
    for (const f of files) hash.update(`${f}\0`).update(await readFile(join(context, f))).update('\0');
    const digest = hash.digest('hex');
    return { kind: 'build', dockerfile, context, files, tag: `agent-teams-devcontainer:${digest.slice(0, 16)}`, hash: digest };
  }
  return { refused: NO_IMAGE };
}

const present = (engine: Docker, ref: string) => engine.getImage(ref).inspect().then(() => true, () => false);

/** Follows a pull's or a build's progress stream, passing its lines on; rejects on its error. */
function follow(engine: Docker, stream: NodeJS.ReadableStream, progress: (line: string) => void): Promise<void> {
  return new Promise((resolveDone, reject) => {
    engine.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const failed = err ?? out.find((o) => o.error)?.error;
      if (failed) reject(new Error(String(failed instanceof Error ? failed.message : failed)));
      else resolveDone();
    }, (e: { status?: string; stream?: string; progress?: string }) => {
      const line = (e.stream ?? [e.status, e.progress].filter(Boolean).join(' ')).trim();
      if (line) progress(line);
    });
  });
}

/** The image reference, pulled or built if the engine lacks it; `progress` gets what the engine says. */
export async function ensureImage(engine: Docker, src: ImageSource, progress: (line: string) => void = () => {}): Promise<{ ref: string; made: 'present' | 'pulled' | 'built' }> {
  if (src.kind === 'image') {
    if (await present(engine, src.ref)) return { ref: src.ref, made: 'present' };
    progress(`pulling ${src.ref}`);
    try {
      await follow(engine, await engine.pull(src.ref), progress);
    } catch (e) {
      throw new Error(`the image ${src.ref} is not on the engine and could not be pulled: ${(e as Error).message}`);
    }
    return { ref: src.ref, made: 'pulled' };
  }
  if (await present(engine, src.tag)) return { ref: src.tag, made: 'present' };
  progress(`building ${src.tag} from ${relative(src.context, src.dockerfile) || src.dockerfile}`);
  const dockerfile = relative(src.context, src.dockerfile).split(sep).join('/');
  const files = src.files.includes(dockerfile) ? src.files : [...src.files, dockerfile];
  try {
    const stream = await engine.buildImage({ context: src.context, src: files }, { t: src.tag, dockerfile, labels: { [LABEL_CONTENT]: src.hash }, rm: true });
    await follow(engine, stream, progress);
  } catch (e) {
    throw new Error(`building the devcontainer's image failed: ${(e as Error).message}`);
  }
  if (!(await present(engine, src.tag))) throw new Error(`building the devcontainer's image did not produce ${src.tag}`);
  return { ref: src.tag, made: 'built' };
}
