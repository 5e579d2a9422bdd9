import { defineCommand } from './define';

const tidy = (s: string) => s.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();

export const text = defineCommand({
  name: 'text',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: 'Visible text of the page, or of one element',
  args: [{ name: 'selector', kind: 'selector' }],
  async run(ctx, { selector }) {
    const loc = await ctx.resolve(selector ? String(selector) : 'body');
    return tidy(await loc.innerText({ timeout: ctx.actionTimeout }));
  },
});

export const html = defineCommand({
  name: 'html',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: "The page's HTML, or one element's outer HTML",
  args: [{ name: 'selector', kind: 'selector' }],
  async run(ctx, { selector }) {
    if (!selector) return ctx.frame.content();
    return (await ctx.resolve(String(selector))).evaluate((el) => el.outerHTML, undefined, { timeout: ctx.actionTimeout });
  },
});

export const links = defineCommand({
  name: 'links',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: 'Every link on the page as "text → href"',
  async run(ctx) {
    const rows = await ctx.frame.evaluate(() =>
      Array.from(document.querySelectorAll('a[href]'), (a) => {
        const label = ((a as HTMLElement).innerText || a.getAttribute('aria-label') || a.getAttribute('title') || '').replace(/\s+/g, ' ').trim();
        return `${label.slice(0, 100) || '(no text)'} → ${(a as HTMLAnchorElement).href}`;
      }),
    );
    return rows.length ? rows.join('\n') : '(no links)';
  },
});

export const forms = defineCommand({
  name: 'forms',
  untrusted: true,
  category: 'read',
  group: 'Read',
  description: 'Forms and their fields as JSON (password values masked)',
  async run(ctx) {
    const found = await ctx.frame.evaluate(() => {
      type Field = Record<string, unknown>;
      const labelOf = (el: Element): string | undefined => {
        const id = el.getAttribute('id');
        const explicit = id ? document.querySelector(`label[for="${CSS.escape(id)}"]`) : null;
        const label = explicit ?? el.closest('label');
        const text = (label as HTMLElement | null)?.innerText ?? el.getAttribute('aria-label') ?? el.getAttribute('placeholder') ?? undefined;
        return text?.replace(/\s+/g, ' ').trim() || undefined;
      };
      const describe = (el: Element): Field => {
        const input = el as HTMLInputElement;
        const type = el.tagName === 'INPUT' ? input.type : el.tagName.toLowerCase();
        const field: Field = { tag: el.tagName.toLowerCase(), type, name: input.name || undefined, id: el.id || undefined, label: labelOf(el) };
        if (type === 'password') field.value = input.value ? `[REDACTED — ${input.value.length} chars]` : '';
        else if (type === 'checkbox' || type === 'radio') field.checked = input.checked;
        else if (el.tagName === 'SELECT') {
          field.value = (el as HTMLSelectElement).value;
          field.options = Array.from((el as HTMLSelectElement).options, (o) => o.value);
        } else if (type !== 'submit' && type !== 'button') field.value = input.value;
        if (input.required) field.required = true;
        if (input.disabled) field.disabled = true;
        return field;
      };
      const controls = 'input:not([type=hidden]), select, textarea, button';
      const out: Record<string, unknown>[] = Array.from(document.forms, (f, index) => ({
        index,
        id: f.id || undefined,
        name: f.getAttribute('name') || undefined,
        action: f.action,
        method: (f.method || 'get').toUpperCase(),
        fields: Array.from(f.querySelectorAll(controls), describe),
      }));
      const loose = Array.from(document.querySelectorAll(controls)).filter((el) => !(el as HTMLInputElement).form);
      if (loose.length) out.push({ index: out.length, formless: true, fields: loose.map(describe) });
      return out;
    });
    return found.length ? JSON.stringify(found, null, 2) : '(no forms)';
  },
});
