import sanitizeHtml from 'sanitize-html';

/**
 * HTML sanitisation of survey texts: a string is cleaned only when it looks like
 * HTML, so plain texts such as `a < b & c` are stored exactly as sent.
 */

const TAGS = [
  'a', 'abbr', 'acronym', 'area', 'article', 'aside', 'b', 'bdi', 'bdo', 'blockquote', 'br', 'caption', 'center',
  'cite', 'code', 'col', 'colgroup', 'data', 'dd', 'del', 'details', 'dfn', 'div', 'dl', 'dt', 'em', 'figcaption',
  'figure', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'i', 'img', 'ins', 'kbd', 'li',
  'map', 'mark', 'nav', 'ol', 'p', 'pre', 'q', 'rp', 'rt', 'rtc', 'ruby', 's', 'samp', 'small', 'span', 'strike',
  'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'th', 'thead', 'time', 'tr', 'tt', 'u', 'ul', 'var', 'wbr',
];

const CELL = ['abbr', 'align', 'axis', 'bgcolor', 'char', 'charoff', 'colspan', 'headers', 'height', 'nowrap', 'rowspan', 'scope', 'valign', 'width'];
const ROW_GROUP = ['align', 'char', 'charoff', 'valign'];
const COLUMN = ['align', 'char', 'charoff', 'span'];

const ATTRIBUTES: Record<string, string[]> = {
  '*': ['style', 'lang', 'title', 'width', 'height'],
  // `rel` is never taken from the input: every link gets rel="noopener" (see transformTags).
  a: ['href', 'hreflang', 'target', 'rel'],
  bdo: ['dir'],
  blockquote: ['cite'],
  col: COLUMN,
  colgroup: COLUMN,
  del: ['cite', 'datetime'],
  hr: ['align', 'size', 'width'],
  img: ['align', 'alt', 'height', 'src', 'width'],
  ins: ['cite', 'datetime'],
  ol: ['start', 'type'],
  q: ['cite'],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'rules', 'summary', 'width'],
  tbody: ROW_GROUP,
  tfoot: ROW_GROUP,
  thead: ROW_GROUP,
  td: CELL,
  th: CELL,
  tr: ['align', 'bgcolor', 'char', 'charoff', 'valign'],
};

// The URL schemes PostHog's cleaner (ammonia) keeps by default; relative URLs are kept too.
const URL_SCHEMES = [
  'bitcoin', 'ftp', 'ftps', 'geo', 'http', 'https', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'mms', 'mx', 'news',
  'nntp', 'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'url', 'webcal', 'wtai', 'xmpp',
];

// `allowedEmptyAttributes` exists in sanitize-html 2.x but not in its type definitions.
const OPTIONS: sanitizeHtml.IOptions & { allowedEmptyAttributes: string[] } = {
  allowedTags: TAGS,
  allowedAttributes: ATTRIBUTES,
  // Empty attributes stay as `title=""` instead of being dropped or rendered bare.
  allowedEmptyAttributes: [...new Set(Object.values(ATTRIBUTES).flat())],
  allowedSchemes: URL_SCHEMES,
  allowProtocolRelative: true,
  // Removed with their content; any other disallowed tag is dropped and its text kept.
  nonTextTags: ['script', 'style'],
  disallowedTagsMode: 'discard',
  // Style values are kept as written (no CSS re-serialisation).
  parseStyleAttributes: false,
  transformTags: {
    a: (tagName, attribs) => {
      const { rel: _ignored, ...rest } = attribs;
      return { tagName, attribs: { ...rest, rel: 'noopener' } };
    },
  },
};

/** Cleans `html` with the allow-list; unclosed tags are closed. */
export function cleanHtml(html: string): string {
  return (
    sanitizeHtml(html, OPTIONS)
      // Void elements as HTML writes them (`<br>`, not `<br />`): text and attribute values have
      // `>` escaped, so ` />` only ever closes a void element here.
      .replace(/ \/>/g, '>')
      .replace(/\u00a0/g, '&nbsp;')
  );
}

/** The string cleaned when it looks like HTML, else unchanged. */
export const sanitizeText = (text: string): string => (looksLikeHtml(text) ? cleanHtml(text) : text);

/**
 * Whether an HTML tokenizer would find markup in `text`: a complete start or end tag, a comment, a
 * doctype or processing instruction (bogus comment), or a NUL character. Stray `<` (`a < b`, `<3`),
 * entities and a tag left open at the end of the text are not markup.
 */
export function looksLikeHtml(text: string): boolean {
  if (text.includes('\0')) return true;
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    const next = text[i + 1];
    if (next === '!' || next === '?') return true;
    if (next === '/') {
      const first = text[i + 2];
      if (first === undefined || first === '>') continue;
      if (!isAsciiLetter(first)) return true;
      return tagIsClosed(text, i + 3);
    }
    if (next !== undefined && isAsciiLetter(next)) return tagIsClosed(text, i + 2);
  }
  return false;
}

const isAsciiLetter = (c: string) => /^[A-Za-z]$/.test(c);

/** From inside a tag: whether a `>` outside quoted attribute values ends it. A tag open at the end swallows the rest. */
function tagIsClosed(text: string, from: number): boolean {
  let afterEquals = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '>') return true;
    if (afterEquals && (c === '"' || c === "'")) {
      const close = text.indexOf(c, i + 1);
      if (close === -1) return false;
      i = close;
      afterEquals = false;
    } else if (c === '=') {
      afterEquals = true;
    } else if (!/\s/.test(c)) {
      afterEquals = false;
    }
  }
  return false;
}
