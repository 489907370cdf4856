import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/kernel/errors.ts';
import type { SurveyRecord } from '../../src/surveys/record.ts';
import type { SurveyWriteBody } from '../../src/surveys/schemas.ts';
import { newSurveyValues } from '../../src/surveys/write.ts';
import type { SurveyLookup, SurveyValidationContext } from '../../src/surveys/validation/context.ts';
import { looksLikeHtml, sanitizeText, validateSurveyWrite } from '../../src/surveys/validation/index.ts';
import type { FlagFilters } from '../../src/targeting/types.ts';

// ---------------------------------------------------------------------------------------------
// an in-memory SurveyLookup and helpers

interface MemoryFlag {
  id: number;
  key: string;
  filters: FlagFilters;
}

const FLAGS: MemoryFlag[] = [
  { id: 1, key: 'plain', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } },
  {
    id: 2,
    key: 'multi',
    filters: {
      groups: [],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'test', rollout_percentage: 50 },
        ],
      },
    },
  },
];

class MemoryLookup implements SurveyLookup {
  readonly flagCalls: number[] = [];
  readonly nameCalls: Array<[string, string | null]> = [];
  constructor(
    private readonly flags: MemoryFlag[] = FLAGS,
    private readonly surveys: Array<{ id: string; name: string }> = [{ id: 'stored-id', name: 'Taken name' }],
  ) {}
  async flagById(id: number) {
    this.flagCalls.push(id);
    return this.flags.find((flag) => flag.id === id) ?? null;
  }
  async surveyNameTaken(name: string, exceptId: string | null) {
    this.nameCalls.push([name, exceptId]);
    return this.surveys.some((survey) => survey.name === name && survey.id !== exceptId);
  }
}

const NOW = new Date('2024-05-10T15:30:00.000Z');

function storedSurvey(overrides: Partial<SurveyRecord> = {}): SurveyRecord {
  return {
    ...newSurveyValues(),
    id: 'stored-id',
    project_id: 1,
    name: 'Stored',
    questions: [{ type: 'open', question: 'Stored question?' }],
    iteration_start_dates: null,
    created_at: NOW,
    created_by_id: null,
    created_by: null,
    updated_at: NOW,
    headline_summary: null,
    headline_response_count: null,
    question_summaries: null,
    ...overrides,
  };
}

type Body = Record<string, unknown>;

const createContext = (lookup: SurveyLookup = new MemoryLookup()): SurveyValidationContext => ({
  isCreate: true,
  existing: null,
  lookup,
  now: NOW,
});
const patchContext = (existing: SurveyRecord = storedSurvey(), lookup: SurveyLookup = new MemoryLookup()): SurveyValidationContext => ({
  isCreate: false,
  existing,
  lookup,
  now: NOW,
});

/** A valid create body with `extra` merged over it. */
const createBody = (extra: Body = {}): Body => ({ name: 'New survey', type: 'popover', ...extra });

const create = (extra: Body = {}, context = createContext()) => validateSurveyWrite(createBody(extra) as SurveyWriteBody, context);
const patch = (body: Body, context = patchContext()) => validateSurveyWrite(body as SurveyWriteBody, context);

interface Expected {
  detail: string;
  attr: string | null;
  code?: string;
}

async function rejects(promise: Promise<unknown>, { detail, attr, code = 'invalid_input' }: Expected): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.deepEqual(
      { status: error.status, type: error.type, code: error.code, detail: error.message, attr: error.attr },
      { status: 400, type: 'validation_error', code, detail, attr },
    );
    return true;
  });
}

const questionsError = (detail: string): Expected => ({ detail, attr: 'questions' });
const withQuestions = (...questions: unknown[]) => create({ questions });
const openQuestion = (extra: Body = {}): Body => ({ type: 'open', question: 'Why?', ...extra });

// ---------------------------------------------------------------------------------------------

describe('field-level rules', () => {
  test('name is required on create', async () => {
    await rejects(create({ name: undefined }), { detail: 'This field is required.', attr: 'name', code: 'required' });
  });

  test('type is required on create', async () => {
    await rejects(create({ type: undefined }), { detail: 'This field is required.', attr: 'type', code: 'required' });
  });

  test('name comes before type when both are missing', async () => {
    await rejects(validateSurveyWrite({} as SurveyWriteBody, createContext()), {
      detail: 'This field is required.',
      attr: 'name',
      code: 'required',
    });
  });

  test('neither is required on update', async () => {
    const result = await patch({ description: 'changed' });
    assert.deepEqual(result, { description: 'changed' });
  });

  test('a name made of blanks is blank', async () => {
    await rejects(create({ name: '   ' }), { detail: 'This field may not be blank.', attr: 'name', code: 'blank' });
    await rejects(patch({ name: '\t ' }), { detail: 'This field may not be blank.', attr: 'name', code: 'blank' });
  });

  test('schedule must be once, recurring or always (or null)', async () => {
    for (const schedule of ['never', 5, true, [], {}]) {
      await rejects(create({ schedule }), { detail: 'Schedule must be one of: once, recurring, always', attr: 'schedule' });
    }
    for (const schedule of ['once', 'recurring', 'always', null]) {
      assert.equal((await create({ schedule })).schedule, schedule);
    }
  });

  test('the field checks run in the serializer field order: schedule before questions', async () => {
    await rejects(create({ schedule: 'x', questions: 'x' }), {
      detail: 'Schedule must be one of: once, recurring, always',
      attr: 'schedule',
    });
  });

  test('the survey name and description are not sanitised', async () => {
    const result = await create({ name: '<b>Name</b><script>x</script>', description: '<script>x</script>desc' });
    assert.equal(result.name, '<b>Name</b><script>x</script>');
    assert.equal(result.description, '<script>x</script>desc');
  });

  test('the input body is not modified', async () => {
    const body = createBody({ questions: [openQuestion({ question: '<script>x</script>Why?' })] });
    const copy = structuredClone(body);
    await validateSurveyWrite(body as SurveyWriteBody, createContext());
    assert.deepEqual(body, copy);
  });
});

describe('questions', () => {
  test('not a list, or an item not an object', async () => {
    for (const questions of ['x', 5, { question: 'a' }, true]) {
      await rejects(create({ questions }), questionsError('Questions must be a list of objects'));
    }
    for (const item of ['x', 5, null, [openQuestion()]]) {
      await rejects(withQuestions(openQuestion(), item), questionsError('Questions must be a list of objects'));
    }
  });

  test('null and [] are accepted', async () => {
    assert.equal((await create({ questions: null })).questions, null);
    assert.deepEqual((await create({ questions: [] })).questions, []);
  });

  test('question text is required', async () => {
    for (const question of [undefined, null, '', 0, false, []]) {
      await rejects(withQuestions({ type: 'open', question }), questionsError('Question text is required'));
    }
  });

  test('question text must be a string', async () => {
    for (const question of [5, true, ['a'], { a: 1 }]) {
      await rejects(withQuestions({ type: 'open', question }), questionsError('Question text must be a string'));
    }
  });

  test('description must be a string', async () => {
    for (const description of [5, true, ['a'], { a: 1 }, 0, false]) {
      await rejects(withQuestions(openQuestion({ description })), questionsError('Question description must be a string'));
    }
    const [question] = (await withQuestions(openQuestion({ description: null }))).questions as Body[];
    assert.equal(question.description, null);
  });

  for (const field of ['buttonText', 'lowerBoundLabel', 'upperBoundLabel']) {
    test(`${field} must be a string`, async () => {
      await rejects(withQuestions(openQuestion({ [field]: 7 })), questionsError(`Question ${field} must be a string`));
      await rejects(withQuestions(openQuestion({ [field]: ['x'] })), questionsError(`Question ${field} must be a string`));
    });
  }

  test('choices must be a list of strings, not empty', async () => {
    const choice = (choices: unknown) => withQuestions({ type: 'single_choice', question: 'Pick', choices });
    for (const choices of ['a,b', 5, { a: 'b' }, '', false]) {
      await rejects(choice(choices), questionsError('Question choices must be a list of strings'));
    }
    await rejects(choice(['a', 5]), questionsError('Question choices must be strings'));
    await rejects(choice(['a', null]), questionsError('Question choices must be strings'));
    await rejects(choice(['a', '']), questionsError('Question choices cannot be empty'));
    await rejects(choice(['a', '  \t']), questionsError('Question choices cannot be empty'));
    const [question] = (await choice(['a', 'b'])).questions as Body[];
    assert.deepEqual(question.choices, ['a', 'b']);
  });

  test('descriptionContentType is text or html', async () => {
    for (const descriptionContentType of ['markdown', 'HTML', 5, true]) {
      await rejects(
        withQuestions(openQuestion({ descriptionContentType })),
        questionsError("Question descriptionContentType must be one of ['text', 'html']"),
      );
    }
    for (const descriptionContentType of ['text', 'html', null, '']) {
      await withQuestions(openQuestion({ descriptionContentType }));
    }
  });

  test('the checks run per question in order: text before description before choices', async () => {
    await rejects(
      withQuestions({ question: '', description: 5, choices: 'x' }),
      questionsError('Question text is required'),
    );
    await rejects(withQuestions({ question: 'q', description: 5, choices: 'x' }), questionsError('Question description must be a string'));
    await rejects(
      withQuestions({ question: 'q', choices: 'x', descriptionContentType: 'bad' }),
      questionsError('Question choices must be a list of strings'),
    );
    await rejects(
      withQuestions({ question: 'q', descriptionContentType: 'bad', translations: 5 }),
      questionsError("Question descriptionContentType must be one of ['text', 'html']"),
    );
    await rejects(
      withQuestions({ question: 'q', translations: 5, link: 5 }),
      questionsError('Question 1: translations must be an object'),
    );
    await rejects(
      withQuestions({ question: 'q', link: 5, validation: 5 }),
      questionsError('Question 1: link must be a string'),
    );
  });

  test('the first bad question is reported, numbered from 1', async () => {
    await rejects(
      withQuestions(openQuestion(), openQuestion(), openQuestion({ link: 42 })),
      questionsError('Question 3: link must be a string'),
    );
  });

  test('unknown keys, ids and branching are kept; no id is assigned', async () => {
    const question = { id: 'custom-id-1', type: 'rating', question: 'Rate', scale: 10, display: 'number', branching: { type: 'end' }, extra: [1] };
    const result = await withQuestions(question);
    assert.deepEqual(result.questions, [question]);
    const [withoutId] = (await withQuestions(openQuestion())).questions as Body[];
    assert.equal('id' in withoutId, false);
  });
});

describe('question translations', () => {
  const translated = (translations: unknown, extra: Body = {}) => withQuestions(openQuestion({ translations, ...extra }));

  test('must be an object (null too)', async () => {
    for (const translations of [null, 'fr', ['fr'], 5]) {
      await rejects(translated(translations), questionsError('Question 1: translations must be an object'));
    }
  });

  test('each language must be an object', async () => {
    await rejects(translated({ fr: 'Pourquoi ?' }), questionsError("Question 1: Translation for 'fr' must be an object"));
    await rejects(
      withQuestions(openQuestion(), openQuestion({ translations: { de: null } })),
      questionsError("Question 2: Translation for 'de' must be an object"),
    );
  });

  test('text fields must be strings', async () => {
    for (const field of ['question', 'description', 'buttonText', 'lowerBoundLabel', 'upperBoundLabel', 'link']) {
      await rejects(
        translated({ fr: { [field]: 5 } }),
        questionsError(`Question 1: Translation 'fr' field '${field}' must be a string`),
      );
    }
    await rejects(translated({ fr: { question: null } }), questionsError("Question 1: Translation 'fr' field 'question' must be a string"));
  });

  test('translated choices must be a list of non-empty strings', async () => {
    const choiceQuestion = (fr: unknown) =>
      withQuestions({ type: 'single_choice', question: 'Pick', choices: ['a', 'b'], translations: { fr } });
    await rejects(choiceQuestion({ choices: 'a,b' }), questionsError("Question 1: Translation 'fr' field 'choices' must be a list of strings"));
    await rejects(choiceQuestion({ choices: ['a', 3] }), questionsError('Question choices must be strings'));
    await rejects(choiceQuestion({ choices: ['a', ' '] }), questionsError('Question choices cannot be empty'));
  });

  test('translated choices must match the number of choices', async () => {
    await rejects(
      withQuestions(openQuestion(), { type: 'multiple_choice', question: 'Pick', choices: ['a', 'b', 'c'], translations: { fr: { choices: ['x', 'y'] } } }),
      questionsError("Question 2: Translation 'fr' has 2 choices but question has 3 choices. Array lengths must match to avoid partial translations."),
    );
  });

  test('every language is type-checked before lengths are compared', async () => {
    await rejects(
      withQuestions({ type: 'single_choice', question: 'Pick', choices: ['a', 'b'], translations: { fr: { choices: ['x'] }, de: { question: 5 } } }),
      questionsError("Question 1: Translation 'de' field 'question' must be a string"),
    );
  });

  test('translated links follow the link rules', async () => {
    await rejects(
      withQuestions({ type: 'link', question: 'Visit', link: 'https://example.com', translations: { fr: { link: 'http://example.fr' } } }),
      questionsError('Link must be a URL with one of these schemes: [https, mailto]'),
    );
    await rejects(
      withQuestions({ type: 'link', question: 'Visit', link: 'https://example.com', translations: { fr: { link: '' } } }),
      questionsError('Link must be a URL with one of these schemes: [https, mailto]'),
    );
  });

  test('cleaned: sanitised, unknown fields and choices of a choice-less question dropped, empty languages removed', async () => {
    const result = await withQuestions(
      openQuestion({
        translations: {
          fr: { question: '<b>Pourquoi</b><script>x</script>', unknown: 'dropped', choices: ['a'] },
          de: { unknown: 'only' },
          es: { choices: ['solo'] },
          it: {},
          pt: { link: 'https://example.pt/<b>' , description: 'plain & simple <3' },
        },
      }),
    );
    const [question] = result.questions as Body[];
    assert.deepEqual(question.translations, {
      fr: { question: '<b>Pourquoi</b>' },
      pt: { description: 'plain & simple <3', link: 'https://example.pt/<b></b>' },
    });
  });

  test('translated choices are sanitised and kept on a question with choices', async () => {
    const result = await withQuestions({
      type: 'single_choice',
      question: 'Pick',
      choices: ['a', 'b'],
      translations: { fr: { choices: ['<i>x</i><script>y</script>', 'z'], buttonText: '<u>OK' } },
    });
    const [question] = result.questions as Body[];
    assert.deepEqual(question.translations, { fr: { buttonText: '<u>OK</u>', choices: ['<i>x</i>', 'z'] } });
  });
});

describe('links', () => {
  const linked = (link: unknown) => withQuestions({ type: 'link', question: 'Visit', link });

  test('must be a string', async () => {
    for (const link of [5, true, ['https://a.com'], { href: 'x' }]) {
      await rejects(linked(link), questionsError('Question 1: link must be a string'));
    }
  });

  test('scheme must be https or mailto', async () => {
    for (const link of ['http://example.com', 'javascript:alert(1)', 'ftp://x.com', 'example.com', '//example.com', 'data:text/html,x']) {
      await rejects(linked(link), questionsError('Link must be a URL with one of these schemes: [https, mailto]'));
    }
  });

  test('mailto must be an address', async () => {
    for (const link of ['mailto:', 'mailto:someone', 'mailto:a@b', 'mailto:a@b.c', 'MAILTO:a@b.com', 'mailto:a@b.com?subject=x']) {
      await rejects(
        linked(link),
        questionsError('Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).'),
      );
    }
    assert.equal(((await linked('mailto:first.last+tag@mail.example.org')).questions as Body[])[0].link, 'mailto:first.last+tag@mail.example.org');
    // Python's `$` also matches before one final newline.
    assert.equal(((await linked('mailto:a@b.com\n')).questions as Body[])[0].link, 'mailto:a@b.com\n');
  });

  test('https needs a host', async () => {
    for (const link of ['https:', 'https:/path', 'https:///path', 'https:example.com']) {
      await rejects(linked(link), questionsError('Invalid HTTPS URL. Please enter a valid HTTPS link.'));
    }
  });

  test('valid links are kept, case-insensitive scheme, absent/null/empty links skipped', async () => {
    for (const link of ['https://posthog.com/docs?x=1#y', 'HTTPS://example.com', '  https://example.com']) {
      assert.equal(((await linked(link)).questions as Body[])[0].link, link);
    }
    for (const link of [null, '']) {
      assert.equal(((await linked(link)).questions as Body[])[0].link, link);
    }
  });

  test('a link that looks like HTML is sanitised after the scheme checks', async () => {
    const [question] = (await linked('https://example.com/<script>alert(1)</script>')).questions as Body[];
    assert.equal(question.link, 'https://example.com/');
  });
});

describe('answer validation rules', () => {
  const validated = (validation: unknown) => withQuestions(openQuestion({ validation }));

  test('must be a list of objects with a known type', async () => {
    await rejects(validated({ type: 'email' }), questionsError('Question validation must be a list of validation rules'));
    await rejects(validated('email'), questionsError('Question validation must be a list of validation rules'));
    await rejects(validated(['email']), questionsError('Each validation rule must be an object'));
    await rejects(validated([{ type: 'regex' }]), questionsError('Validation rule type must be one of: min_length, max_length, email'));
    await rejects(validated([{}]), questionsError('Validation rule type must be one of: min_length, max_length, email'));
  });

  test('length values are positive integers or null', async () => {
    for (const value of [0, -1, 1.5, '3', true]) {
      await rejects(validated([{ type: 'min_length', value }]), questionsError('Validation rule value for min_length must be a positive integer'));
      await rejects(validated([{ type: 'max_length', value }]), questionsError('Validation rule value for max_length must be a positive integer'));
    }
    await validated([{ type: 'min_length', value: null }, { type: 'max_length' }, { type: 'email', value: 'ignored' }]);
  });

  test('minimum must not exceed maximum', async () => {
    await rejects(
      validated([{ type: 'min_length', value: 10 }, { type: 'max_length', value: 5 }]),
      questionsError('Minimum length cannot be greater than maximum length'),
    );
    const result = await validated([{ type: 'min_length', value: 5 }, { type: 'max_length', value: 5 }]);
    assert.deepEqual((result.questions as Body[])[0].validation, [{ type: 'min_length', value: 5 }, { type: 'max_length', value: 5 }]);
  });

  test('null validation is accepted', async () => {
    await validated(null);
  });
});

describe('HTML sanitisation', () => {
  test("PostHog's examples: scripts dropped, open tags closed", async () => {
    assert.equal(sanitizeText('<script>alert(0)</script>check?'), 'check?');
    assert.equal(sanitizeText("<b>We'll use it...<script>alert(0)</script>"), "<b>We'll use it...</b>");
  });

  test('only strings that look like HTML are touched', () => {
    for (const text of ['a < b & c &amp; d', 'I <3 surveys', 'Rate 1<5', 'open <b', '</>', 'x <a title="x>y"', 'x <a title="x>y', 'plain']) {
      assert.equal(looksLikeHtml(text), false, text);
      assert.equal(sanitizeText(text), text);
    }
    for (const text of ['<b>x</b>', '</b>', '<!-- c -->', '<!doctype html>', '<?x?>', 'a <br> b', '</ x>', '</ x', '</1', 'a\0b']) {
      assert.equal(looksLikeHtml(text), true, text);
    }
  });

  test('allowed tags and attributes stay, others go (their text kept)', () => {
    assert.equal(sanitizeText('<p style="color: red" class="x" id="y" onclick="z">t</p>'), '<p style="color: red">t</p>');
    assert.equal(sanitizeText('<h2 lang="en" title="t">T</h2><iframe src="x">in</iframe><form>f</form>'), '<h2 lang="en" title="t">T</h2>inf');
    assert.equal(sanitizeText('<img src="https://x/y.png" alt="" onerror="e()">'), '<img src="https://x/y.png" alt="">');
    assert.equal(sanitizeText('<table border="1"><tr><td colspan="2" nowrap>x</td></tr></table>'), '<table border="1"><tr><td colspan="2" nowrap="">x</td></tr></table>');
    assert.equal(sanitizeText('<ul><li><em>a</em></li></ul><br><hr>'), '<ul><li><em>a</em></li></ul><br><hr>');
    assert.equal(sanitizeText('<style>p{}</style><textarea>t</textarea>'), 't');
  });

  test('links get rel="noopener"; unsafe hrefs are dropped', () => {
    assert.equal(sanitizeText('<a href="https://x.com" target="_blank" rel="nofollow">x</a>'), '<a href="https://x.com" target="_blank" rel="noopener">x</a>');
    assert.equal(sanitizeText('<a href="javascript:alert(1)">x</a>'), '<a rel="noopener">x</a>');
  });

  test('unclosed tags are closed; comments removed', () => {
    assert.equal(sanitizeText('<div><p>open'), '<div><p>open</p></div>');
    assert.equal(sanitizeText('a<!-- hidden -->b'), 'ab');
  });

  test('every question text is sanitised', async () => {
    const dirty = '<b>x</b><script>y</script>';
    const result = await withQuestions({
      type: 'single_choice',
      question: dirty,
      description: dirty,
      buttonText: dirty,
      lowerBoundLabel: dirty,
      upperBoundLabel: dirty,
      choices: [dirty, 'plain < text'],
      translations: { fr: { question: dirty, description: dirty, buttonText: dirty, lowerBoundLabel: dirty, upperBoundLabel: dirty, choices: [dirty, 'b'] } },
    });
    const clean = '<b>x</b>';
    assert.deepEqual(result.questions, [
      {
        type: 'single_choice',
        question: clean,
        description: clean,
        buttonText: clean,
        lowerBoundLabel: clean,
        upperBoundLabel: clean,
        choices: [clean, 'plain < text'],
        translations: { fr: { question: clean, description: clean, buttonText: clean, lowerBoundLabel: clean, upperBoundLabel: clean, choices: [clean, 'b'] } },
      },
    ]);
  });
});

describe('survey-level translations', () => {
  const translationsError = (detail: string): Expected => ({ detail, attr: 'translations' });

  test('must be an object of objects of strings', async () => {
    for (const translations of ['fr', ['fr'], 5]) {
      await rejects(create({ translations }), translationsError('Translations must be an object'));
    }
    await rejects(create({ translations: { fr: 'x' } }), translationsError("Translation for 'fr' must be an object"));
    for (const field of ['name', 'description', 'thankYouMessageHeader', 'thankYouMessageDescription', 'thankYouMessageCloseButtonText']) {
      await rejects(create({ translations: { fr: { [field]: 1 } } }), translationsError(`Translation for 'fr': '${field}' must be a string`));
    }
    await rejects(create({ translations: { fr: { name: null } } }), translationsError("Translation for 'fr': 'name' must be a string"));
  });

  test('null clears them', async () => {
    assert.equal((await patch({ translations: null })).translations, null);
  });

  test('sanitised, other fields dropped, empty languages removed', async () => {
    const dirty = '<b>x</b><script>y</script>';
    const result = await create({
      translations: {
        fr: {
          name: dirty,
          description: dirty,
          thankYouMessageHeader: dirty,
          thankYouMessageDescription: dirty,
          thankYouMessageCloseButtonText: dirty,
          submitButtonText: 'dropped',
        },
        de: { other: 'x' },
        es: { name: 'Encuesta & más' },
      },
    });
    const clean = '<b>x</b>';
    assert.deepEqual(result.translations, {
      fr: { name: clean, description: clean, thankYouMessageHeader: clean, thankYouMessageDescription: clean, thankYouMessageCloseButtonText: clean },
      es: { name: 'Encuesta & más' },
    });
  });
});

describe('appearance', () => {
  const appearanceError = (detail: string): Expected => ({ detail, attr: 'appearance' });

  test('must be an object; null allowed', async () => {
    for (const appearance of ['dark', 5, ['x'], true]) {
      await rejects(create({ appearance }), appearanceError('Appearance must be an object'));
    }
    assert.equal((await create({ appearance: null })).appearance, null);
  });

  test('thankYouMessageDescriptionContentType is text or html', async () => {
    for (const value of ['markdown', 5]) {
      await rejects(
        create({ appearance: { thankYouMessageDescriptionContentType: value } }),
        appearanceError("thankYouMessageDescriptionContentType must be one of ['text', 'html']"),
      );
    }
    await create({ appearance: { thankYouMessageDescriptionContentType: 'html' } });
  });

  test('surveyPopupDelaySeconds is not negative', async () => {
    for (const value of [-1, -0.5, '5', true]) {
      await rejects(create({ appearance: { surveyPopupDelaySeconds: value } }), appearanceError('Survey popup delay seconds must be a positive integer'));
    }
    for (const value of [0, 3, null]) await create({ appearance: { surveyPopupDelaySeconds: value } });
  });

  test('whiteLabel is a boolean, and true is allowed (no plans here)', async () => {
    for (const value of ['true', 1]) {
      await rejects(create({ appearance: { whiteLabel: value } }), appearanceError('whiteLabel must be a boolean'));
    }
    assert.deepEqual((await create({ appearance: { whiteLabel: true } })).appearance, { whiteLabel: true });
  });

  test('the three thank-you texts are sanitised and must be strings; the rest is kept as sent', async () => {
    const dirty = '<b>x</b><script>y</script>';
    const result = await create({
      appearance: {
        thankYouMessageHeader: dirty,
        thankYouMessageDescription: dirty,
        thankYouMessageCloseButtonText: dirty,
        submitButtonText: dirty,
        backgroundColor: '#fff',
        custom: { a: 1 },
      },
    });
    assert.deepEqual(result.appearance, {
      thankYouMessageHeader: '<b>x</b>',
      thankYouMessageDescription: '<b>x</b>',
      thankYouMessageCloseButtonText: '<b>x</b>',
      submitButtonText: dirty,
      backgroundColor: '#fff',
      custom: { a: 1 },
    });
    await rejects(create({ appearance: { thankYouMessageHeader: ['<script>x</script>'] } }), appearanceError('thankYouMessageHeader must be a string'));
  });
});

describe('conditions', () => {
  test('must be an object; null allowed', async () => {
    for (const conditions of ['x', 5, [{}]]) {
      await rejects(create({ conditions }), { detail: 'Conditions must be an object', attr: 'conditions' });
    }
    await create({ conditions: null });
  });

  test('actions are kept as sent, unknown ids included', async () => {
    const conditions = { url: 'x', actions: { values: [{ id: 999, name: 'Unknown' }] } };
    assert.deepEqual((await create({ conditions })).conditions, conditions);
  });
});

describe('object-level rules', () => {
  test('1. linked_flag_id must be a live flag of the project', async () => {
    const lookup = new MemoryLookup();
    await rejects(create({ linked_flag_id: 99 }, createContext(lookup)), { detail: 'Feature Flag with this ID does not exist', attr: null });
    assert.deepEqual(lookup.flagCalls, [99]);
    await create({ linked_flag_id: 1 });
    const zero = new MemoryLookup();
    await create({ linked_flag_id: 0 }, createContext(zero));
    await create({ linked_flag_id: null }, createContext(zero));
    assert.deepEqual(zero.flagCalls, []);
  });

  test('2. targeting_flag_id must be a live flag of the project', async () => {
    await rejects(create({ targeting_flag_id: 42 }), { detail: 'Targeting Feature Flag with this ID does not exist', attr: null });
    await create({ targeting_flag_id: 2 });
  });

  test('1 before 2', async () => {
    await rejects(create({ linked_flag_id: 98, targeting_flag_id: 99 }), { detail: 'Feature Flag with this ID does not exist', attr: null });
  });

  test('3. linkedFlagVariant must be a variant of the linked flag in the request', async () => {
    await rejects(create({ linked_flag_id: 2, conditions: { linkedFlagVariant: 'other' } }), {
      detail: "Feature flag variant 'other' does not exist. Available variants: control, test",
      attr: null,
    });
    await rejects(create({ linked_flag_id: 1, conditions: { linkedFlagVariant: 'control' } }), {
      detail: "Feature flag variant 'control' specified but the linked feature flag has no variants",
      attr: null,
    });
    await rejects(create({ conditions: { linkedFlagVariant: 'control' } }), {
      detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified',
      attr: null,
    });
    await rejects(create({ conditions: { linkedFlagVariant: 'any' } }), {
      detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified',
      attr: null,
    });
    // A stored linked flag does not count on a PATCH that omits linked_flag_id.
    await rejects(patch({ conditions: { linkedFlagVariant: 'test' } }, patchContext(storedSurvey({ linked_flag_id: 2 }))), {
      detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified',
      attr: null,
    });
    await create({ linked_flag_id: 2, conditions: { linkedFlagVariant: 'test' } });
    await create({ linked_flag_id: 1, conditions: { linkedFlagVariant: 'any' } });
    await create({ conditions: { linkedFlagVariant: '' } });
  });

  test('4. the name is unique in the project (create)', async () => {
    await rejects(create({ name: 'Taken name' }), { detail: 'There is already a survey with this name.', attr: 'name', code: 'unique' });
    await create({ name: 'taken name' });
  });

  test('4. the name is unique in the project (update, only when it changes)', async () => {
    const lookup = new MemoryLookup(FLAGS, [
      { id: 'stored-id', name: 'Stored' },
      { id: 'other-id', name: 'Other' },
    ]);
    await rejects(patch({ name: 'Other' }, patchContext(storedSurvey(), lookup)), {
      detail: 'There is already another survey with this name.',
      attr: 'name',
      code: 'unique',
    });
    assert.deepEqual(lookup.nameCalls, [['Other', 'stored-id']]);
    await patch({ name: 'Stored' }, patchContext(storedSurvey(), lookup));
    await patch({ description: 'no name' }, patchContext(storedSurvey(), lookup));
    assert.equal(lookup.nameCalls.length, 1);
    await patch({ name: 'Fresh' }, patchContext(storedSurvey(), lookup));
  });

  test('5. targeting filters must not roll out to everyone', async () => {
    const error = {
      detail: 'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
      attr: null,
    };
    const property = { key: 'email', value: 'x', operator: 'icontains', type: 'person' };
    for (const group of [{ rollout_percentage: 100, properties: [] }, { rollout_percentage: null }, {}, { properties: null }]) {
      await rejects(create({ targeting_flag_filters: { groups: [{ properties: [property], rollout_percentage: 100 }, group] } }), error);
    }
    await create({ targeting_flag_filters: { groups: [{ properties: [property], rollout_percentage: 100 }] } });
    await create({ targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 50 }] } });
    await create({ targeting_flag_filters: {} });
    await create({ targeting_flag_filters: null });
  });

  test('5. targeting filters that are not an object are a clean 400', async () => {
    await rejects(create({ targeting_flag_filters: 'everyone' }), {
      detail: 'Expected a dictionary of items but got type "str".',
      attr: 'targeting_flag_filters',
      code: 'not_a_dict',
    });
    await rejects(create({ targeting_flag_filters: [1] }), {
      detail: 'Expected a dictionary of items but got type "list".',
      attr: 'targeting_flag_filters',
      code: 'not_a_dict',
    });
  });

  test('6. response sampling starts today (UTC) or later', async () => {
    await rejects(create({ response_sampling_start_date: '2024-05-09T23:59:59.250Z' }), {
      detail: 'Response sampling start date must be today or a future date in UTC. Got 2024-05-09 23:59:59.250000+00:00 when current time is 2024-05-10 00:00:00+00:00',
      attr: 'response_sampling_start_date',
    });
    await rejects(create({ response_sampling_start_date: '2024-05-10T01:00:00+02:00' }), {
      detail: 'Response sampling start date must be today or a future date in UTC. Got 2024-05-09 23:00:00+00:00 when current time is 2024-05-10 00:00:00+00:00',
      attr: 'response_sampling_start_date',
    });
    // Earlier today is still today.
    await create({ response_sampling_start_date: '2024-05-10T00:00:00Z' });
    await create({ response_sampling_start_date: '2024-05-10T00:30:00+00:30' });
    await create({ response_sampling_start_date: null });
  });

  test('7. the sampling interval is greater than 0', async () => {
    await rejects(create({ response_sampling_interval: 0 }), {
      detail: 'Response sampling interval must be greater than 0.',
      attr: 'response_sampling_interval',
    });
    await create({ response_sampling_interval: 1 });
  });

  test('8. a sampling limit with an interval needs a start date', async () => {
    await rejects(create({ response_sampling_limit: 10, response_sampling_interval: 7 }), {
      detail: 'Response sampling start date should be set if response_sampling_start_date is not zero.',
      attr: 'response_sampling_start_date',
    });
    await create({ response_sampling_limit: 10, response_sampling_interval: 7, response_sampling_start_date: '2024-05-11T00:00:00Z' });
    await create({ response_sampling_limit: 0, response_sampling_interval: 7 });
    await create({ response_sampling_limit: null, response_sampling_interval: 7 });
  });

  test('8. a sampling limit without an interval is a clean 400 (PostHog: 500)', async () => {
    for (const response_sampling_interval of [undefined, null]) {
      await rejects(create({ response_sampling_limit: 10, response_sampling_interval, response_sampling_start_date: '2024-05-11T00:00:00Z' }), {
        detail: 'Response sampling interval should be set if response_sampling_limit is set.',
        attr: 'response_sampling_interval',
      });
    }
  });

  const shuffleError = {
    detail: 'Question shuffling and question branching cannot be used together. Please disable one of these features.',
    attr: null,
  };
  const branching = (extra: Body = {}) => openQuestion({ branching: { type: 'end' }, ...extra });

  test('9. shuffling and branching exclude each other (create)', async () => {
    await rejects(create({ appearance: { shuffleQuestions: true }, questions: [openQuestion(), branching()] }), shuffleError);
    await create({ appearance: { shuffleQuestions: false }, questions: [branching()] });
    await create({ appearance: { shuffleQuestions: true }, questions: [openQuestion({ branching: null })] });
  });

  test('9. judged on stored appearance and questions merged with the incoming ones (update)', async () => {
    const shuffled = storedSurvey({ appearance: { shuffleQuestions: true, backgroundColor: '#fff' } });
    await rejects(patch({ questions: [branching()] }, patchContext(shuffled)), shuffleError);
    await rejects(patch({ appearance: { backgroundColor: '#000' }, questions: [branching()] }, patchContext(shuffled)), shuffleError);
    await rejects(patch({ appearance: null, questions: [branching()] }, patchContext(shuffled)), shuffleError);
    await patch({ appearance: { shuffleQuestions: false }, questions: [branching()] }, patchContext(shuffled));

    const branched = storedSurvey({ questions: [branching()] });
    await rejects(patch({ appearance: { shuffleQuestions: true } }, patchContext(branched)), shuffleError);
    await rejects(patch({ appearance: { shuffleQuestions: true }, questions: null }, patchContext(branched)), shuffleError);
    await patch({ appearance: { shuffleQuestions: true }, questions: [openQuestion()] }, patchContext(branched));
  });

  test('10. external surveys take no in-app targeting', async () => {
    const external = (extra: Body) => create({ type: 'external_survey', ...extra });
    await rejects(external({ linked_flag_id: 1 }), { detail: 'linked_flag_id is not allowed for external surveys', attr: 'linked_flag_id' });
    await rejects(external({ targeting_flag_filters: {} }), {
      detail: 'targeting_flag_filters is not allowed for external surveys',
      attr: 'targeting_flag_filters',
    });
    await rejects(external({ conditions: { url: 'x', selector: null, actions: { values: [{ id: 1 }] }, events: { values: [] } } }), {
      detail: 'The following condition fields are not allowed for external surveys: url, actions',
      attr: 'conditions',
    });
    await rejects(
      external({
        conditions: {
          deviceTypesMatchType: 'exact',
          events: { values: [{ name: 'x' }] },
          urlMatchType: 'exact',
          selector: '.a',
          seenSurveyWaitPeriodInDays: 0,
          linkedFlagVariant: '',
          deviceTypes: [],
          url: '',
        },
      }),
      {
        detail:
          'The following condition fields are not allowed for external surveys: url, urlMatchType, selector, seenSurveyWaitPeriodInDays, linkedFlagVariant, deviceTypes, deviceTypesMatchType, events',
        attr: 'conditions',
      },
    );
    await rejects(external({ appearance: { surveyPopupDelaySeconds: 0 } }), {
      detail: 'surveyPopupDelaySeconds is not allowed for external surveys',
      attr: 'appearance',
    });
    // The first key wins.
    await rejects(external({ targeting_flag_filters: { groups: [{ properties: [{ key: 'a', value: 'b' }] }] }, appearance: { surveyPopupDelaySeconds: 1 } }), {
      detail: 'targeting_flag_filters is not allowed for external surveys',
      attr: 'targeting_flag_filters',
    });
    await external({
      linked_flag_id: null,
      targeting_flag_filters: null,
      conditions: { url: null, actions: { values: [] }, events: { values: [] } },
      appearance: { surveyPopupDelaySeconds: null, backgroundColor: '#fff' },
    });
    // Only when this request sets the type.
    await patch({ linked_flag_id: 1 }, patchContext(storedSurvey({ type: 'external_survey' })));
  });

  test('the object rules run in order and only after the field checks', async () => {
    const lookup = new MemoryLookup();
    await rejects(create({ linked_flag_id: 99, questions: 'x' }, createContext(lookup)), questionsError('Questions must be a list of objects'));
    assert.deepEqual(lookup.flagCalls, []);
    await rejects(create({ name: 'Taken name', conditions: { linkedFlagVariant: 'x' } }), {
      detail: 'linkedFlagVariant can only be used when a linked_flag_id is specified',
      attr: null,
    });
    await rejects(create({ name: 'Taken name', targeting_flag_filters: { groups: [{}] } }), {
      detail: 'There is already a survey with this name.',
      attr: 'name',
      code: 'unique',
    });
    await rejects(create({ targeting_flag_filters: { groups: [{}] }, response_sampling_interval: 0 }), {
      detail: 'Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting',
      attr: null,
    });
    await rejects(create({ response_sampling_interval: 0, appearance: { shuffleQuestions: true }, questions: [branching()] }), {
      detail: 'Response sampling interval must be greater than 0.',
      attr: 'response_sampling_interval',
    });
    await rejects(create({ type: 'external_survey', linked_flag_id: 1, appearance: { shuffleQuestions: true }, questions: [branching()] }), shuffleError);
  });
});

describe('the answer', () => {
  test('a full valid body comes back with only its HTML cleaned', async () => {
    const body = createBody({
      description: 'desc',
      schedule: 'recurring',
      linked_flag_id: 2,
      questions: [
        { type: 'single_choice', question: 'Pick', choices: ['a', 'b'], branching: { type: 'response_based', responseValues: { 0: 1 } } },
        { type: 'link', question: 'Visit <a href="https://x.com">us</a>', link: 'https://posthog.com' },
      ],
      conditions: { url: 'posthog.com', linkedFlagVariant: 'control', events: { repeatedActivation: true, values: [{ name: 'x' }] } },
      appearance: { backgroundColor: '#eee', thankYouMessageHeader: 'Thanks!' },
      translations: { fr: { name: 'Sondage' } },
      response_sampling_start_date: '2024-05-11T00:00:00Z',
      response_sampling_interval: 7,
      response_sampling_limit: 100,
      iteration_count: 2,
    });
    const result = await validateSurveyWrite(body as SurveyWriteBody, createContext());
    const expected = structuredClone(body);
    (expected.questions as Body[])[1].question = 'Visit <a href="https://x.com" rel="noopener">us</a>';
    assert.deepEqual(result, expected);
  });
});
