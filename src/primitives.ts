// The schemas every feature's requests and answers share, in one place, so that an id,
// an amount, a page or an account number means the same on every route. (Calendar dates
// live with the calendar.) No I/O: the rating core's tariff schema uses Code too.
import { Type } from 'typebox';

/** Free text a client may send (a name, a note, a reason): PostgreSQL refuses a NUL byte in text. */
export const NO_NUL = '^[^\\x00]*$';
/** Something besides white space (a reason printed on a credit note). */
export const NOT_BLANK = '\\S';

// Characters that show as nothing or reorder the text around them: C0 and C1 controls,
// the soft hyphen, zero-width spaces and joiners (U+200B-U+200F), line and paragraph
// separators, bidirectional embeddings, overrides and isolates (U+202A-U+202E,
// U+2066-U+2069), word joiner and invisible operators (U+2060-U+2064), the BOM and
// interlinear annotations. In an identifier they make two values that look alike differ
// (or a value read backwards on screen), so a clerk cannot type back what is shown.
// The characters themselves, not \u escapes, go into the pattern: every regex dialect of a
// client generated from the OpenAPI document reads a literal character (Go's RE2 has no \u).
// Except the line and paragraph separators (U+2028, U+2029), written as the escapes \u2028
// and \u2029: JavaScript ends a regular-expression literal at a raw one, and the zod
// generators (openapi-zod-client, @hey-api/openapi-ts) write every pattern as a literal, so
// their generated clients did not parse (an outside check, test/http/typedClients.test.ts).
export const INVISIBLE = '\\x00-\\x1f\\x7f-\\x9f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\\u2028\\u2029\u202a-\u202e\u2060-\u206f\u3164\ufeff\ufff9-\ufffb';
// In an identifier also the combining grapheme joiner and the variation selectors (U+034F,
// U+FE00-U+FE0F): zero-width, "A\u034fB" shows as "AB" (an outside review). Not in INVISIBLE
// itself, which bounds names: an emoji's U+FE0F ends "Ana ❤️". Plane 14's tag characters are
// refused in every string of a request body (http/body.ts): no BMP-only pattern can hold them.
export const INVISIBLE_IN_IDENTIFIER = `${INVISIBLE}\u034f\ufe00-\ufe0f`;
/**
 * Plane 14 (tag characters, variation selectors supplement): refused in any text a client sends,
 * a request body's or an import file's. Invisible, and no pattern of the OpenAPI document can name
 * them (its patterns keep to the BMP, which every client's regex dialect reads): "INV\u{E0041}1"
 * made an account number that shows as "INV1" (an outside review).
 */
export const TAG_CHARACTERS = /[\u{E0000}-\u{E0FFF}]/u;
export const TAG_CHARACTER_MESSAGE = 'holds an invisible tag character (U+E0000 to U+E0FFF)';

/**
 * A name or label a person reads (a template's, a component's, a batch's, a term's, a
 * document template's): not only spaces, no NUL. A fuzzer's "  " was taken for all of them
 * and printed as nothing on bills and in the console.
 */
export const VISIBLE_TEXT = `^[^\\x00]*[^\\s${INVISIBLE_IN_IDENTIFIER}][^\\x00]*$`;
export const VISIBLE_TEXT_MESSAGE = 'must hold a visible character, not only spaces or zero-width characters';
/** VISIBLE_TEXT on one line: no control character at all. */
export const VISIBLE_LINE = `^[^\\x00-\\x1f]*[^\\s${INVISIBLE_IN_IDENTIFIER}][^\\x00-\\x1f]*$`;
export const VISIBLE_LINE_MESSAGE = 'must hold a visible character, not only spaces or zero-width characters, and no control character (tab, line break)';

/** The largest identifier: what a JavaScript client holds exactly (and far inside PostgreSQL's bigint). */
export const MAX_ID = 9007199254740991;
/** A record's identifier: a positive integer that a JavaScript client holds exactly. */
export const Id = Type.Integer({ minimum: 1, maximum: MAX_ID });
/** An identifier with what it names. */
export const IdOf = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, description });

/** An amount in an answer: exact decimal text in the app's currency, never a JSON number. */
export const Money = Type.String({ description: 'exact decimal text, e.g. "1234.50"' });

/** limit and offset of a list request. */
export const PagingInput = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0 })),
};

/** The page a list answer holds, and how many records match in all. */
export const Paging = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer({ description: 'records matching the filters' }),
});


/**
 * An identifier people type and read back (an account number, a payment reference):
 * any visible character of any script, inner spaces, no leading or trailing space.
 */
export const IDENTIFIER_PATTERN = `^[^\\s${INVISIBLE_IN_IDENTIFIER}](?:[^${INVISIBLE_IN_IDENTIFIER}]*[^\\s${INVISIBLE_IN_IDENTIFIER}])?$`;
export const IDENTIFIER_MESSAGE = 'must be visible characters: no control, zero-width or bidirectional characters, no space at either end';
/** IDENTIFIER_PATTERN for a value checked in code (a file's rows), as the schemas check a request's fields. */
const IDENTIFIER_RE = new RegExp(IDENTIFIER_PATTERN, 'u');
export const isIdentifier = (text: string): boolean => IDENTIFIER_RE.test(text);

/** Codes that name things in the API (serviceCode, batchCode, meter and component codes): ASCII only. */
export const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';

/** A non-negative decimal written plainly: digits, an optional point and decimals (a rate, a reading, a deposit). */
export const DECIMAL_PATTERN = '^[0-9]+(\\.[0-9]+)?$';
/** An amount of money as text: up to 15 digits, a point and up to 4 decimals. */
export const AMOUNT_PATTERN = '^[0-9]{1,15}(\\.[0-9]{1,4})?$';
/** A wall-clock moment in the app's time zone (sheduleTime, set-clock's now). */
export const LOCAL_TIME_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$';
/** The sandbox's page size as query text: 1 to 100. */
export const SANDBOX_LIMIT_PATTERN = '^(100|[1-9][0-9]?)$';
/** The same, with a space allowed for the T (the events' since, as createdAt is written). */
export const LOCAL_TIME_SPACE_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}$';

export const Code = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: CODE_PATTERN,
  description: 'Identifier, unique within its array: letters, digits, _ . - (starts with a letter or digit)',
});

export const ACCOUNT_NUMBER = { pattern: IDENTIFIER_PATTERN, maxLength: 64 };

export const AccountNumber = Type.String({ minLength: 1, ...ACCOUNT_NUMBER, description: 'unique within the app' });
