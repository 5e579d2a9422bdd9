import { BrowseError } from '../errors';
import { editDistance, GROUP_ORDER, type Command } from './define';
import * as navigate from './navigate';
import * as read from './read';
import * as inspect from './inspect';
import * as interact from './interact';
import * as visual from './visual';
import * as snapshot from './snapshot';
import * as pageInfo from './page-info';
import * as session from './session';
import * as namedSessions from './sessions';
import * as browserCookies from './browser-cookies';
import * as compare from './compare';
import * as tabs from './tabs';
import * as meta from './meta';
import * as doctor from './doctor';

const isCommand = (v: unknown): v is Command => typeof v === 'object' && v !== null && 'run' in v && 'name' in v && 'group' in v;

/** The registry: every command, in help order. Dispatch, help and docs read only this. */
export const commands: readonly Command[] = [navigate, read, inspect, interact, visual, snapshot, pageInfo, compare, tabs, session, namedSessions, browserCookies, meta, doctor]
  .flatMap((mod) => Object.values(mod).filter(isCommand))
  .sort((a, b) => GROUP_ORDER.indexOf(a.group) - GROUP_ORDER.indexOf(b.group));

const byName = new Map(commands.map((c) => [c.name, c]));
if (byName.size !== commands.length) throw new Error('Duplicate command name in the registry');

export function findCommand(name: string): Command | undefined {
  return byName.get(name);
}

export function unknownCommand(name: string): BrowseError {
  const ranked = commands
    .map((c) => ({ name: c.name, d: editDistance(name.toLowerCase(), c.name) }))
    .filter((c) => c.d <= Math.max(1, Math.floor(name.length / 3)) || c.name.startsWith(name.toLowerCase()))
    .sort((a, b) => a.d - b.d);
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  const guess = ranked[0] ? ` Did you mean '${ranked[0].name}'?` : '';
  return new BrowseError(`Unknown command '${shown}'.${guess}`, 'Run `help` for the list of commands.', 404);
}
