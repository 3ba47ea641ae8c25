// The two tools of the framework agents, as plain data each framework
// wraps in its own tool type: a name, a description, the argument's
// schema (zod) and a deterministic implementation, so that every request
// is the same from run to run.
import { z } from 'zod';

export const system = 'You answer travel questions. Use the tools for weather and time; never guess them.';

export const tools = [
  {
    name: 'get_time',
    description: 'Local time in a city.',
    schema: z.object({ city: z.string().describe('City name, such as Oslo') }),
    run: async ({ city }) => `${city}: 14:05`,
  },
  {
    name: 'get_weather',
    description: 'Current weather for a city.',
    schema: z.object({ city: z.string().describe('City name, such as Oslo') }),
    run: async ({ city }) => `${city}: 12 °C, clear`,
  },
];

// main runs an agent's body, prints its final text, and turns a failure
// into a message on stderr and exit status 1.
export function main(name, body) {
  body().then(
    (text) => process.stdout.write(text + '\n'),
    (e) => {
      process.stderr.write(`${name}: ${e?.stack ?? e}\n`);
      process.exit(1);
    },
  );
}
