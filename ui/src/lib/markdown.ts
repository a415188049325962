/**
 * Markdown as HTML for the trace page (docs/dashboard.md, "Markdown"): marked turns the text into
 * HTML, DOMPurify keeps only the tags and attributes of plain formatted text. Nothing a span's
 * text carries can run a script, load a resource or style the page: raw HTML in the markdown is
 * shown as text (escaped before any parser sees it: Chromium reports, and the CSP blocks, the
 * inline handlers of markup DOMPurify parses), images become links (the page's CSP allows images
 * from this origin only, so one would only fail), `javascript:` links lose their target, and links
 * open in a new tab without a referrer.
 * Loaded on demand (a dynamic import) by MarkdownText, so the trace page's first paint does not
 * wait for it.
 */
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

/** Past this many characters a text is shown raw: rendering is for reading, not for megabytes. */
export const MARKDOWN_MAX_CHARS = 200_000;

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const marked = new Marked({
  gfm: true,
  // A single line break is a line break, as in the chat answers this renders.
  breaks: true,
  async: false,
  renderer: {
    html({ text, block }: Tokens.HTML | Tokens.Tag): string {
      return block ? `<p>${escapeHtml(text)}</p>` : escapeHtml(text);
    },
    image({ href, text }: Tokens.Image): string {
      return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
    },
  },
});

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'strong',
  'b',
  'em',
  'i',
  'del',
  's',
  'code',
  'pre',
  'kbd',
  'sub',
  'sup',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'details',
  'summary',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align', 'colspan', 'rowspan'];

let hooked = false;

/** The markdown `text` as sanitized HTML. */
export function renderMarkdown(text: string): string {
  if (!hooked) {
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A' && node.hasAttribute('href')) {
        node.setAttribute('target', '_blank');
        node.setAttribute('rel', 'noopener noreferrer nofollow');
      }
    });
    hooked = true;
  }
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false });
}
