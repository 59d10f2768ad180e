// The longer help of `agent-teams run` (its summary and synopsis are in commands.ts).
/** `agent-teams run --help`: what a first headless run needs (docs/headless.md has the rest). */
export const RUN_DETAILS = `
  <prompt…> | -                the prompt as words, or - to read it from stdin
  -p, --prompt <text>          the prompt (-p - reads stdin)
  --prompt-file <file>         the prompt from a file
  --with <name>[:<agent_type>] repeatable: a teammate spawned before the lead starts (from .team/agents
                               or .claude/agents when <agent_type> is given)
  --container                  the --with teammates work in containers (docs/containers.md)
  --timeout <s>                give up after <s> seconds: the team is stopped, exit 1
  --output-format <f>          text (the lead's last words; default), json (one object at the end),
                               stream-json (one event a line as they happen)

  Nothing is asked: what would ask the user (a command no rule allows while --bash is ask, an MCP
  call, a plan with --plan-approval user) is denied and reported on stderr. Let work through with
  --bash allow or --allow 'Bash(npm test:*)'; keep commands out with --deny.
  Exit codes: 0 done with nothing left blocked; 1 work left blocked (listed after the lead's
  words), an error, or the timeout; 2 bad usage.
  Needs ANTHROPIC_API_KEY (or OPENAI_API_KEY with --model openai:<id>). Every session option
  applies (agent-teams --help). More: docs/headless.md.

  Examples:
    agent-teams run "Fix the failing test in src/parser.ts"
    git diff | agent-teams run - --output-format json
    agent-teams run --prompt-file task.md --with alice --with bob:reviewer --bash allow --timeout 900`;
