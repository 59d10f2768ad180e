// Agent definitions from .team/agents and .claude/agents: what loads, and every bad file
// reported with its path while the others still load.
import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { definitionsForLead, loadAgentDefinitions, MAX_BODY_CHARS } from '../../src/core/roles/agent-definitions';
import { knownTeammateTools } from '../../src/core/roles/roles';
import { resolveModel } from '../../src/core/roles/models';
import { tempDir } from '../helpers/tmp';

const opts = { knownTools: knownTeammateTools(['bash', 'read_file', 'write_file', 'edit_file', 'send_message', 'idle']), teamModel: 'claude-sonnet-5-5' };

async function put(root: string, rel: string, text: string): Promise<void> {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), text);
}

test('definitions: both folders, Claude Code tool names and model aliases, sorted by name', async (t) => {
  const root = await tempDir(t);
  await put(root, '.team/agents/reviewer.md', '---\nname: reviewer\ndescription: Reviews diffs\ntools: read_file, grep\nmodel: claude-haiku-4-5\n---\nYou review.\n');
  await put(root, '.claude/agents/architect.md', '---\nname: architect\ndescription: >-\n  Plans the\n  design\ntools: Read, Glob, Bash\nmodel: opus\ncolor: blue\n---\n\nThink first.\n');
  await put(root, '.claude/agents/notes.txt', 'not a definition');
  await put(root, '.team/agents/all.md', '---\nname: all-tools\ndescription: Everything\n---\n');
  const { definitions, problems } = await loadAgentDefinitions(root, opts);
  assert.deepEqual(problems, []);
  assert.deepEqual(definitions.map((d) => d.name), ['all-tools', 'architect', 'reviewer']);
  const [all, arch, rev] = definitions;
  assert.equal(all!.tools, null);
  assert.equal(all!.model, undefined);
  assert.deepEqual(arch!.tools, ['read_file', 'glob', 'bash']);
  assert.equal(arch!.model, 'claude-opus-4-5');
  assert.equal(arch!.description, 'Plans the design');
  assert.equal(arch!.body, 'Think first.');
  assert.equal(arch!.path, '.claude/agents/architect.md');
  assert.deepEqual(rev!.tools, ['read_file', 'grep']);
  assert.equal(rev!.model, 'claude-haiku-4-5');
  const listed = definitionsForLead(definitions);
  assert.match(listed, /- architect: Plans the design \(model claude-opus-4-5\)\n- reviewer: Reviews diffs/);
  // Stable bytes for the prompt cache: the same files give the same text.
  assert.equal(definitionsForLead((await loadAgentDefinitions(root, opts)).definitions), listed);
});

test('definitions: broken YAML, unknown tools and models, duplicates, bad names, huge bodies and links are reported with their path', async (t) => {
  const root = await tempDir(t);
  await put(root, '.team/agents/good.md', '---\nname: good\ndescription: fine\n---\nok');
  await put(root, '.team/agents/broken.md', '---\nname: [unclosed\ndescription: x\n---\nbody');
  await put(root, '.team/agents/nofm.md', 'just text, no front matter');
  await put(root, '.team/agents/tools.md', '---\nname: tooly\ndescription: x\ntools: read_file, rm_rf, Teleport\n---\n');
  await put(root, '.team/agents/model.md', '---\nname: modely\ndescription: x\nmodel: gpt 4o\n---\n');
  await put(root, '.team/agents/proxy.md', '---\nname: proxy\ndescription: x\nmodel: openrouter/anthropic/claude-sonnet-4.5\n---\n');
  await put(root, '.team/agents/badname.md', '---\nname: "../../etc"\ndescription: x\n---\n');
  await put(root, '.team/agents/lead.md', '---\nname: lead\ndescription: x\n---\n');
  await put(root, '.team/agents/nodesc.md', '---\nname: nodesc\n---\n');
  await put(root, '.team/agents/dupkeys.md', '---\nname: a\nname: b\ndescription: x\n---\n');
  await put(root, '.claude/agents/good.md', '---\nname: good\ndescription: the other one\n---\n');
  await put(root, '.team/agents/huge.md', `---\nname: huge\ndescription: big\n---\n${'x'.repeat(1024 * 1024)}`);
  await put(root, '.team/agents/bomb.md', '---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nname: bomb\ndescription: x\n---\n');
  const outside = await tempDir(t);
  await writeFile(join(outside, 'secret.md'), '---\nname: secret\ndescription: x\n---\nSECRET');
  await symlink(join(outside, 'secret.md'), join(root, '.team/agents/secret.md'));
  const { definitions, problems } = await loadAgentDefinitions(root, opts);
  assert.deepEqual(definitions.map((d) => d.name), ['good', 'huge', 'proxy']);
  assert.equal(definitions[0]!.path, '.team/agents/good.md');
  const by = Object.fromEntries(problems.map((p) => [p.path, p.message]));
  assert.match(by['.team/agents/broken.md']!, /broken YAML/);
  assert.match(by['.team/agents/nofm.md']!, /no YAML front matter/);
  assert.match(by['.team/agents/tools.md']!, /unknown tools "rm_rf", "Teleport"/);
  assert.match(by['.team/agents/model.md']!, /bad model id "gpt 4o"/);
  // A proxy's model name is used, with a warning that says so.
  assert.equal(definitions.find((d) => d.name === 'proxy')?.model, 'openrouter/anthropic/claude-sonnet-4.5');
  assert.match(by['.team/agents/proxy.md']!, /not a Claude model id we know: it is sent to the API as given/);
  assert.match(by['.team/agents/badname.md']!, /bad name/);
  assert.match(by['.team/agents/lead.md']!, /bad name/);
  assert.match(by['.team/agents/nodesc.md']!, /description/);
  assert.match(by['.team/agents/dupkeys.md']!, /broken YAML/);
  assert.match(by['.claude/agents/good.md']!, /duplicate agent name "good" \(already defined in \.team\/agents\/good\.md\)/);
  assert.match(by['.team/agents/huge.md']!, /cut to 32000/);
  assert.match(by['.team/agents/bomb.md']!, /broken YAML|alias/i);
  assert.match(by['.team/agents/secret.md']!, /outside the workspace/);
  assert.ok(definitions[1]!.body.length < MAX_BODY_CHARS + 200);
  assert.ok(!JSON.stringify(definitions).includes('SECRET'));
});

test('definitions: none at all is no problem', async (t) => {
  const root = await tempDir(t);
  assert.deepEqual(await loadAgentDefinitions(root, opts), { definitions: [], problems: [] });
  assert.equal(definitionsForLead([]), '');
});

test('models: aliases follow the team model family; unknown sane ids are taken with a warning, insane ones refused', () => {
  assert.deepEqual(resolveModel('sonnet', 'claude-sonnet-5-5'), { ok: true, model: 'claude-sonnet-5-5' });
  assert.deepEqual(resolveModel('inherit', 'claude-sonnet-5-5'), { ok: true, model: undefined });
  assert.deepEqual(resolveModel(null, 'x'), { ok: true, model: undefined });
  assert.deepEqual(resolveModel('claude-3-5-haiku-20241022', 'x'), { ok: true, model: 'claude-3-5-haiku-20241022' });
  for (const id of ['gpt-4o', 'openrouter/anthropic/claude-3.7-sonnet', 'arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-x-v1:0', 'claude-sonnet-4-5@20250929', 'my-proxy-model']) {
    const r = resolveModel(id, 'x');
    assert.ok(r.ok && r.model === id && /not a Claude model id we know/.test(r.warning ?? ''), id);
  }
  for (const id of ['gpt 4o', 'a\nb', '../../etc/passwd', '-rf', 'x'.repeat(201), 'model$(id)']) assert.equal(resolveModel(id, 'x').ok, false, id);
  assert.equal(resolveModel('claude-sonnet-4-5; rm -rf /', 'x').ok, false);
});
