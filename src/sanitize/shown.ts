/**
 * Untrusted text on its way to a person or a file outside the tool's answer — an error message, a stderr
 * line, a log line, an id. An error can carry the call's text (Node's fs errors quote the path they were
 * given, and a "path" may be a 64 KB program holding a secret), so it is never printed as thrown:
 *
 *   - secrets become <REDACTED> (the sanitizer);
 *   - control characters become `?` (a newline must not forge another log or stderr line);
 *   - it is cut to a bounded length (a prefix of sanitized text holds no secret: each is already a marker).
 */
import { describeError } from '../core/errors.js';
import { sanitize, type Sanitized } from './index.js';

/** What an error message may say at most: a sentence and a path, not an input. */
export const MAX_SHOWN_ERROR = 600;

export function shownText(text: string, max: number): Sanitized {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const visible = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  const clean = sanitize(visible).text;
  return (clean.length <= max ? clean : `${clean.slice(0, max)}… (${clean.length - max} more characters)`) as Sanitized;
}

/** A thrown value as one line a user may see: describeError, sanitized and bounded. */
export function shownError(error: unknown, max = MAX_SHOWN_ERROR): Sanitized {
  return shownText(describeError(error), max);
}
