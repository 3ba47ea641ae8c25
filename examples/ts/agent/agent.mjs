#!/usr/bin/env node
// A small travel-weather agent on the official TypeScript SDKs
// (@anthropic-ai/sdk and openai). It loads its tools from plugins, sends
// the prompt with its system prompt and tools, runs the tools the model
// calls, sends their results back, and goes on until the model answers
// with text alone (at most --max-steps requests). The final text goes to
// stdout.
//
// Usage:
//
//   node agent.mjs [--api anthropic|openai-chat|openai-responses] [--stream]
//                  [--async-plugins] [--count-tokens] [--max-steps N] --prompt TEXT
//
// --api and --stream default to the AGENT_API and AGENT_STREAM (1 or true)
// environment variables, then to anthropic and no streaming. The SDKs
// connect to ANTHROPIC_BASE_URL or OPENAI_BASE_URL with ANTHROPIC_API_KEY
// or OPENAI_API_KEY, the variables headergold sets for a captured agent.
//
// --async-plugins registers each plugin after a random delay and keeps
// the order of registration: the tool list then follows timing, and
// headergold's repeat pass reports it as a reorder.

import { parseArgs } from 'node:util';
import { loadTools, runTool } from './plugins.mjs';
import { system } from './system.mjs';
import { apis } from './providers.mjs';

function usage(msg) {
  process.stderr.write(`agent: ${msg}\n`);
  process.stderr.write(
    'usage: node agent.mjs [--api anthropic|openai-chat|openai-responses] [--stream] [--async-plugins] [--count-tokens] [--max-steps N] --prompt TEXT\n',
  );
  process.exit(2);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        api: { type: 'string' },
        stream: { type: 'boolean' },
        'async-plugins': { type: 'boolean', default: false },
        'count-tokens': { type: 'boolean', default: false },
        'max-steps': { type: 'string', default: '8' },
        prompt: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    usage(e.message);
  }
  const api = parsed.api ?? process.env.AGENT_API ?? 'anthropic';
  if (!Object.hasOwn(apis, api)) usage(`unknown --api ${api}; want ${Object.keys(apis).join(', ')}`);
  const stream = parsed.stream ?? ['1', 'true'].includes((process.env.AGENT_STREAM ?? '').toLowerCase());
  const maxSteps = Number(parsed['max-steps']);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) usage(`--max-steps ${parsed['max-steps']}: want a whole number from 1`);
  if (!parsed.prompt) usage('--prompt is required');
  if (parsed['count-tokens'] && api !== 'anthropic') usage('--count-tokens is for --api anthropic');
  return {
    api,
    stream,
    maxSteps,
    prompt: parsed.prompt,
    asyncPlugins: parsed['async-plugins'],
    countTokens: parsed['count-tokens'],
  };
}

async function main() {
  const opts = options();
  const tools = await loadTools({ async: opts.asyncPlugins });
  const conv = apis[opts.api]({ system, tools, prompt: opts.prompt, stream: opts.stream, countTokens: opts.countTokens });
  for (let step = 1; step <= opts.maxSteps; step++) {
    let reply;
    try {
      reply = await conv.send();
    } catch (e) {
      throw new Error(`step ${step} (${opts.api}${opts.stream ? ', streaming' : ''}): ${e.message}`, { cause: e });
    }
    if (reply.calls.length === 0) {
      process.stdout.write(reply.text + '\n');
      return;
    }
    // The calls of one reply run one after the other, in the order the
    // model gave them.
    conv.addResults(reply.calls.map((c) => ({ id: c.id, ...runTool(tools, c.name, c.args) })));
  }
  throw new Error(`no answer after ${opts.maxSteps} steps`);
}

main().catch((e) => {
  process.stderr.write(`agent: ${e.message}\n`);
  process.exit(1);
});
