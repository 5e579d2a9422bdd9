// One error type for the whole tool: a message that says what happened, a hint that says what to run next.
export class BrowseError extends Error {
  constructor(
    message: string,
    public readonly hint?: string,
    public readonly status = 400,
  ) {
    super(message);
    this.name = 'BrowseError';
  }
}

/** "1 cookie", "3 cookies": for messages. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function oneLine(message: string, hint?: string): string {
  return hint ? `${message} ${hint}` : message;
}

const firstLine = (s: string) => s.split('\n')[0].replace(/^\w+\.\w+: /, '').trim();

// The one place where Playwright's (and Chromium's) errors become messages an agent can act on.
export function translateError(err: unknown, target?: string): BrowseError {
  if (err instanceof BrowseError) return err;
  const raw = err instanceof Error ? err.message : String(err);
  const msg = raw.replace(/\x1b\[[0-9;]*m/g, '');
  const what = target ? ` '${target}'` : '';

  const strict = msg.match(/strict mode violation: .*? resolved to (\d+) elements/);
  if (strict) {
    return new BrowseError(
      `Selector${what} matched ${strict[1]} elements.`,
      'Use a more specific CSS selector (e.g. add :nth-of-type or an id), or an @ref from `snapshot`.',
    );
  }
  if (/while parsing (css )?selector|Unexpected token .* selector|is not a valid selector|Unknown engine/i.test(msg)) {
    return new BrowseError(`Invalid selector${what}.`, 'Use a CSS selector like `#id`, `.class` or `button[type=submit]`, or an @ref from `snapshot`.');
  }
  const net = msg.match(/net::(ERR_[A-Z_]+)/);
  if (net) {
    const url = msg.match(/at (\S+)/)?.[1] ?? target ?? 'the URL';
    const why: Record<string, string> = {
      ERR_CONNECTION_REFUSED: 'connection refused (is the server running?)',
      ERR_NAME_NOT_RESOLVED: 'the host name does not resolve',
      ERR_ADDRESS_UNREACHABLE: 'the address is unreachable',
      ERR_INTERNET_DISCONNECTED: 'there is no network',
      ERR_FILE_NOT_FOUND: 'the file does not exist',
      ERR_CONNECTION_TIMED_OUT: 'the connection timed out',
      ERR_CERT_AUTHORITY_INVALID: 'the TLS certificate is not trusted',
      ERR_UNSAFE_PORT: 'Chromium refuses this port as unsafe (use another port)',
      ERR_ABORTED: 'the navigation was aborted (a download, or another navigation replaced it)',
    };
    return new BrowseError(
      `Could not load ${url}: ${why[net[1]] ?? net[1]}.`,
      'Check the URL and that the server is up, then run `goto` again.',
    );
  }
  if (/Timeout \d+ms exceeded/.test(msg)) {
    if (/waiting for (locator|selector|getBy)/.test(msg) || /locator\./.test(raw)) {
      const secs = Math.round(Number(msg.match(/Timeout (\d+)ms/)?.[1] ?? 5000) / 1000);
      return new BrowseError(
        `Element${what} not found or not interactable within ${secs}s.`,
        'Run `snapshot -i` for fresh refs, or check the selector with `is visible <sel>`.',
      );
    }
    if (/page\.goto|navigat/i.test(raw)) {
      return new BrowseError(`Navigation${what} did not finish loading in time.`, 'The server may be slow: retry `goto`, or check `network` for stuck requests.');
    }
    return new BrowseError(`Timed out: ${firstLine(msg)}`, 'Retry, or check the page state with `url` and `console --errors`.');
  }
  if (/Target (page, context or browser )?(has been )?closed|Browser has been closed|browser has disconnected/i.test(msg)) {
    return new BrowseError('The page or browser was closed while the command ran.', 'Run `tabs` to see open tabs, or `goto <url>` to open one.', 500);
  }
  if (/Not attached to an active page|Target crashed|Session closed/i.test(msg)) {
    return new BrowseError('The tab\'s page is gone (it crashed or was closed).', 'Run `tabs`, then `goto <url>` or `newtab <url>`.', 500);
  }
  if (/Execution context was destroyed|page is navigating and changing the content/.test(msg)) {
    return new BrowseError('The page navigated while the command ran.', 'Run the command again now that the page has loaded.');
  }
  if (/not an? (<select>|select) element|Element is not a <select>/i.test(msg)) {
    return new BrowseError(`Element${what} is not a <select>.`, 'Use `fill` for text inputs and `click` for custom dropdowns.');
  }
  if (/Element is not an <input>, <textarea>|not editable|Cannot type/i.test(msg)) {
    return new BrowseError(`Element${what} cannot be filled: it is not an editable input.`, 'Target an <input>, <textarea> or contenteditable element; `snapshot -i` lists them.');
  }
  return new BrowseError(firstLine(msg) || 'Command failed.', 'Check the arguments with `help <command>`.', 500);
}
