import { readable, writable, type Readable } from 'svelte/store';

/**
 * Light or dark (issue 32). By default the dashboard follows the system (prefers-color-scheme,
 * through `color-scheme: light dark` in ui/src/palette.css); a choice in the header pins one and
 * is kept in localStorage. The choice is a class on <html>, set when this module is first imported
 * (by the root layout, before it renders anything), so no page is drawn in the other theme first.
 */
export type ThemeChoice = 'light' | 'dark' | 'system';
export const THEME_CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** Where the choice is kept (nothing kept: the system's). */
export const THEME_STORAGE_KEY = 'agent-eval.theme';

function storedChoice(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(THEME_STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    // Storage refused (a locked-down browser): the system's theme.
    return 'system';
  }
}

function apply(choice: ThemeChoice) {
  const root = document.documentElement;
  root.classList.toggle('theme-light', choice === 'light');
  root.classList.toggle('theme-dark', choice === 'dark');
}

const initial = typeof window === 'undefined' ? 'system' : storedChoice();
if (typeof document !== 'undefined') apply(initial);

const choiceStore = writable<ThemeChoice>(initial);
export const themeChoice: Readable<ThemeChoice> = { subscribe: choiceStore.subscribe };

/** Chooses the theme: applied at once and kept; 'system' forgets the choice. */
export function chooseTheme(choice: ThemeChoice) {
  apply(choice);
  try {
    if (choice === 'system') window.localStorage.removeItem(THEME_STORAGE_KEY);
    else window.localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // Not kept, still applied.
  }
  choiceStore.set(choice);
}

/** The theme shown: the choice, or the system's when following it. */
function shownTheme(choice: ThemeChoice, systemDark: boolean): 'light' | 'dark' {
  return choice === 'system' ? (systemDark ? 'dark' : 'light') : choice;
}

/**
 * The theme on screen, changing with the header's choice or the system's setting: what canvas
 * charts redraw on, since they cannot read CSS variables themselves.
 */
export const shownThemeStore: Readable<'light' | 'dark'> = readable<'light' | 'dark'>('light', (set) => {
  const media = window.matchMedia('(prefers-color-scheme: dark)');
  let choice: ThemeChoice = initial;
  const update = () => set(shownTheme(choice, media.matches));
  const stop = choiceStore.subscribe((c) => {
    choice = c;
    update();
  });
  media.addEventListener('change', update);
  return () => {
    stop();
    media.removeEventListener('change', update);
  };
});

/**
 * A CSS colour as the page shows it now (`var(--muted)`, a color-mix(), a hex) as rgba(), for what
 * draws on a canvas (chart.js reads no CSS variable). Resolved on a hidden element, so light-dark()
 * follows the current theme, then painted on a one-pixel canvas, so any colour syntax comes out as
 * plain rgba().
 */
export function cssColor(value: string): string {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  probe.style.color = value;
  document.body.appendChild(probe);
  const computed = getComputedStyle(probe).color;
  probe.remove();
  const ctx = pixel();
  if (!ctx) return computed;
  ctx.clearRect(0, 0, 1, 1);
  ctx.fillStyle = computed;
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = ctx.getImageData(0, 0, 1, 1).data;
  return `rgba(${r}, ${g}, ${b}, ${Math.round((a / 255) * 100) / 100})`;
}

let pixelContext: CanvasRenderingContext2D | null | undefined;
function pixel(): CanvasRenderingContext2D | null {
  if (pixelContext === undefined) {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    pixelContext = canvas.getContext('2d', { willReadFrequently: true });
  }
  return pixelContext;
}
