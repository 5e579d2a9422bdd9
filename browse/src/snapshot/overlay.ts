// Annotated and heatmap screenshots: draw boxes over the page, take a full-page PNG, remove them.
import type { Page } from 'playwright';
import type { Mark } from './capture';

const OVERLAY_ID = '__browse_overlay__';

export interface Paint {
  box: [number, number, number, number];
  label?: string;
  fill?: string;
}

export async function screenshotWithOverlay(page: Page, paints: Paint[], path: string): Promise<void> {
  await page.evaluate(
    ({ id, paints }) => {
      const root = document.createElement('div');
      root.id = id;
      root.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
      for (const p of paints) {
        const [x, y, w, h] = p.box;
        const box = document.createElement('div');
        box.style.cssText = `position:absolute;left:${x + scrollX}px;top:${y + scrollY}px;width:${w}px;height:${h}px;box-sizing:border-box;border:2px solid ${p.fill ? p.fill.replace(/[\d.]+\)$/, '0.9)') : '#e0115f'};background:${p.fill ?? 'transparent'}`;
        if (p.label) {
          const tag = document.createElement('span');
          tag.textContent = p.label;
          tag.style.cssText = 'position:absolute;left:-2px;top:-16px;font:bold 11px/14px monospace;padding:0 3px;color:#fff;background:#e0115f;white-space:nowrap';
          box.appendChild(tag);
        }
        root.appendChild(box);
      }
      document.documentElement.appendChild(root);
    },
    { id: OVERLAY_ID, paints },
  );
  try {
    await page.screenshot({ path, fullPage: true });
  } finally {
    await page.evaluate((id) => document.getElementById(id)?.remove(), OVERLAY_ID).catch(() => {});
  }
}

export const labelPaints = (marks: Mark[]): Paint[] => marks.map((m) => ({ box: m.box, label: `@${m.ref}` }));

// A fixed palette: heatmap colours are never passed through to CSS, so nothing can be injected.
export const HEAT_COLOURS: Record<string, string> = {
  green: 'rgba(34,197,94,0.35)',
  red: 'rgba(239,68,68,0.35)',
  yellow: 'rgba(234,179,8,0.35)',
  orange: 'rgba(249,115,22,0.35)',
  blue: 'rgba(59,130,246,0.35)',
  purple: 'rgba(168,85,247,0.35)',
  gray: 'rgba(107,114,128,0.35)',
  grey: 'rgba(107,114,128,0.35)',
};
