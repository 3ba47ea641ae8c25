// Plugins contribute the agent's tools. Each tool has a name, a
// description, a JSON schema for its arguments and a deterministic
// implementation: the same arguments give the same result on every run,
// so that every request the agent sends is the same from run to run.

// Fixed data the tools answer from: no clock, no network, no randomness.
const weather = {
  Oslo: { celsius: 12, sky: 'clear' },
  Bergen: { celsius: 9, sky: 'rain' },
  Lisbon: { celsius: 21, sky: 'sunny' },
};
const utcOffsets = { Oslo: 1, Bergen: 1, Lisbon: 0, Tokyo: 9 };
// The instant get_time reports, in minutes after midnight UTC.
const referenceUTC = 13 * 60 + 5;

function pad(n) {
  return String(n).padStart(2, '0');
}

// Each plugin is a name and its tools. Tools are listed here in no
// particular order: the registry decides the order of the tool list.
export const plugins = [
  {
    name: 'weather',
    tools: [
      {
        name: 'get_weather',
        description: 'Current weather for a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', description: 'City name, such as Oslo' } },
          required: ['city'],
        },
        run({ city }) {
          const w = weather[city];
          return w ? `${city}: ${w.celsius} °C, ${w.sky}` : `${city}: no data`;
        },
      },
      {
        name: 'get_forecast',
        description: 'Forecast for the next days in a city (1 to 3 days).',
        parameters: {
          type: 'object',
          properties: {
            city: { type: 'string' },
            days: { type: 'integer', minimum: 1, maximum: 3 },
          },
          required: ['city', 'days'],
        },
        run({ city, days }) {
          const w = weather[city];
          if (!w) return `${city}: no data`;
          const n = Math.min(Math.max(Number(days) || 1, 1), 3);
          const out = [];
          for (let d = 1; d <= n; d++) out.push(`day ${d}: ${w.celsius - d} °C, ${w.sky}`);
          return `${city}: ${out.join('; ')}`;
        },
      },
    ],
  },
  {
    name: 'clock',
    tools: [
      {
        name: 'get_time',
        description: 'Local time in a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
        },
        run({ city }) {
          const off = utcOffsets[city];
          if (off === undefined) return `${city}: unknown time zone`;
          const m = (referenceUTC + off * 60 + 24 * 60) % (24 * 60);
          return `${city}: ${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
        },
      },
    ],
  },
  {
    name: 'units',
    tools: [
      {
        name: 'convert_temperature',
        description: 'Convert a temperature between °C and °F.',
        parameters: {
          type: 'object',
          properties: {
            value: { type: 'number' },
            to: { type: 'string', enum: ['C', 'F'] },
          },
          required: ['value', 'to'],
        },
        run({ value, to }) {
          const v = Number(value);
          const r = to === 'F' ? (v * 9) / 5 + 32 : ((v - 32) * 5) / 9;
          return `${Math.round(r * 10) / 10} °${to === 'F' ? 'F' : 'C'}`;
        },
      },
    ],
  },
  {
    name: 'notes',
    // The notes live as long as one run of the agent.
    tools: (() => {
      const notes = [];
      return [
        {
          name: 'remember',
          description: 'Keep a note for later in the conversation.',
          parameters: {
            type: 'object',
            properties: { note: { type: 'string' } },
            required: ['note'],
          },
          run({ note }) {
            notes.push(String(note));
            return `noted (${notes.length} note${notes.length === 1 ? '' : 's'})`;
          },
        },
        {
          name: 'recall',
          description: 'List the notes kept so far.',
          parameters: { type: 'object', properties: {} },
          run() {
            return notes.length ? notes.map((n, i) => `${i + 1}. ${n}`).join('\n') : 'no notes';
          },
        },
      ];
    })(),
  },
];

// byName orders tools by name in UTF-16 code-unit order: the plain <
// comparison, which does not depend on the locale (localeCompare does).
function byName(a, b) {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

// loadTools registers every plugin and returns the tool list.
//
// By default the plugins register one after the other and the list is
// then sorted by name, so it is the same on every run.
//
// With async set, each plugin registers after a random delay of 0 to 20
// ms, the way plugins that load a file or ask a server before they
// register do, and the list keeps the order of registration: the tool
// list follows timing. This is the bug the repeat pass is for.
export async function loadTools({ async = false } = {}) {
  const tools = [];
  const register = (plugin) => {
    for (const t of plugin.tools) {
      if (tools.some((u) => u.name === t.name)) {
        throw new Error(`plugin ${plugin.name}: tool ${t.name} is registered twice`);
      }
      tools.push(t);
    }
  };
  if (!async) {
    plugins.forEach(register);
    return tools.sort(byName);
  }
  await Promise.all(
    plugins.map(
      (p) =>
        new Promise((resolve, reject) => {
          setTimeout(() => {
            try {
              register(p);
              resolve();
            } catch (e) {
              reject(e);
            }
          }, Math.random() * 20);
        }),
    ),
  );
  return tools;
}

// runTool runs the tool a model called. A call of a tool the agent does
// not have, or one that throws, gives an error result rather than ending
// the run, as agents do.
export function runTool(tools, name, args) {
  const t = tools.find((u) => u.name === name);
  if (!t) return { output: `error: no tool named ${name}`, isError: true };
  try {
    return { output: String(t.run(args ?? {})), isError: false };
  } catch (e) {
    return { output: `error: ${e.message}`, isError: true };
  }
}
