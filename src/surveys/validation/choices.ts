import { questionsError } from '../errors.ts';
import { sanitizeText } from './sanitize.ts';

/** The items of a `choices` list (a question's or a translation's): non-empty strings, sanitised. */
export function checkChoiceItems(choices: unknown[]): string[] {
  return choices.map((choice) => {
    if (typeof choice !== 'string') throw questionsError('Question choices must be strings');
    if (choice.trim() === '') throw questionsError('Question choices cannot be empty');
    return sanitizeText(choice);
  });
}
