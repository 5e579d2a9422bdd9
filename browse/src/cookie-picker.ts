// The cookie picker: a page the daemon serves on its local listener for choosing which browser cookies to import.
import type { BrowserContext } from 'playwright';

export interface CookiePicker {
  /** A fresh one-time link (valid 30 s) to the picker. */
  issueUrl(): string;
  /** Answers /cookie-picker and everything under it; undefined for any other path. */
  handle(req: Request): Promise<Response | undefined>;
}

export interface PickerDeps {
  port: () => number;
  /** True when the request carries the daemon's bearer token. */
  hasToken: (req: Request) => boolean;
  session: { browserContext: BrowserContext; importedDomains: Map<string, number> };
}

export function createCookiePicker(deps: PickerDeps): CookiePicker {
  return {
    issueUrl: () => `http://127.0.0.1:${deps.port()}/cookie-picker`,
    handle: async (req) => (new URL(req.url).pathname.startsWith('/cookie-picker') ? new Response('not yet', { status: 501 }) : undefined),
  };
}
