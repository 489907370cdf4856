import { questionsError } from '../errors.ts';
import { sanitizeText } from './sanitize.ts';

/** The schemes a link question may point to. */
const LINK_SCHEMES = ['https', 'mailto'];
// Python's `re.match` with `$`: a single trailing newline is tolerated.
const MAILTO = /^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}\n?$/;

/** A question's (or a translation's) `link`: scheme rules, then sanitised. Answers the link to store. */
export function checkLink(link: string): string {
  const { scheme, host } = splitUrl(link);
  if (!LINK_SCHEMES.includes(scheme)) {
    throw questionsError(`Link must be a URL with one of these schemes: [${LINK_SCHEMES.join(', ')}]`);
  }
  if (scheme === 'mailto' && !MAILTO.test(link)) {
    throw questionsError('Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).');
  }
  if (scheme === 'https' && host === '') {
    throw questionsError('Invalid HTTPS URL. Please enter a valid HTTPS link.');
  }
  return sanitizeText(link);
}

/**
 * Scheme (lower-cased) and host part of a URL the way Python's `urlparse` splits it: leading
 * control characters and spaces are ignored, tabs and newlines removed; the scheme is what stands
 * before the first `:` when it starts with a letter and holds only letters, digits, `+`, `-`, `.`;
 * the host is what follows `//` up to `/`, `?` or `#`.
 */
export function splitUrl(raw: string): { scheme: string; host: string } {
  let rest = raw.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\r\n]/g, '');
  let scheme = '';
  const colon = rest.indexOf(':');
  if (colon > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(rest.slice(0, colon))) {
    scheme = rest.slice(0, colon).toLowerCase();
    rest = rest.slice(colon + 1);
  }
  if (!rest.startsWith('//')) return { scheme, host: '' };
  const end = rest.slice(2).search(/[/?#]/);
  return { scheme, host: end === -1 ? rest.slice(2) : rest.slice(2, 2 + end) };
}
