import { plural } from '../errors';
import { defineCommand } from './define';

const ago = (ms: number) => (ms < 60_000 ? `${Math.round(ms / 1000)}s` : `${Math.round(ms / 60_000)}m`);

export const sessions = defineCommand({
  name: 'sessions',
  category: 'meta',
  group: 'Session',
  description: 'List the named sessions of this daemon (each its own tabs, cookies and logs); * marks yours',
  async run(ctx) {
    const now = Date.now();
    return ctx.sessions
      .list()
      .map((s) => `${s.name === ctx.session ? '*' : ' '} ${s.name} — ${plural(s.browser.listTabs().length, 'tab')}, opened ${ago(now - s.createdAt)} ago, last used ${ago(now - s.lastUsed)} ago`)
      .join('\n');
  },
});

export const session = defineCommand({
  name: 'session',
  category: 'meta',
  group: 'Session',
  description: "End a named session: its tabs, cookies and storage go (its log files stay); other sessions are untouched",
  args: [
    { name: 'action', kind: 'string', required: true, choices: ['close'] },
    { name: 'name', kind: 'string', required: true },
  ],
  async run(ctx, { name }) {
    const tabs = await ctx.sessions.close(String(name));
    return `Closed session ${name} (${plural(tabs, 'tab')}).`;
  },
});
