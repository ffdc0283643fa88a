// Text cut into runs of the fonts that have its glyphs (src/documents/fonts.ts), and a
// right-to-left run given to the layout in the order its words are seen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fontRuns } from '../../src/documents/fonts.ts';

const cases: [string, string, [string, string][]][] = [
  ['Latin alone is one run', 'Zoë Müller', [['regular', 'Zoë Müller']]],
  ['each script in the first font that has it; Hangul had none (an attacker\'s name printed as boxes)', 'Li 王芳 김민수', [['regular', 'Li '], ['cjk', '王芳 '], ['korean', '김민수']]],
  ['one right-to-left word stays whole', 'مريم', [['arabic', 'مريم']]],
  [
    'right-to-left words last first, their spaces apart, the spaces around the run in place',
    'Zoë מרים כהן 김민수',
    [['regular', 'Zoë '], ['hebrew', 'כהן'], ['regular', ' '], ['hebrew', 'מרים'], ['regular', ' '], ['korean', '김민수']],
  ],
  [
    // A reviewer's finding: the digits (in the plain font) cut the Hebrew in two, and the town printed before the street.
    'a right-to-left stretch with a number in it: pieces last first, the number kept whole',
    'רחוב הרצל 12, תל אביב',
    [['hebrew', 'אביב'], ['regular', ' '], ['hebrew', 'תל'], ['regular', ' '], ['regular', ','], ['regular', '12'], ['regular', ' '], ['hebrew', 'הרצל'], ['regular', ' '], ['hebrew', 'רחוב']],
  ],
  // A new user's walk: the 12 of an address line printed at its right-hand end.
  ['a text with no left-to-right letter is one stretch, a number at its end included', 'רחוב הרצל 12', [['regular', '12'], ['regular', ' '], ['hebrew', 'הרצל'], ['regular', ' '], ['hebrew', 'רחוב']]],
  ['left-to-right words end a stretch', 'Flat 5 רחוב הרצל Tel Aviv', [['regular', 'Flat 5 '], ['hebrew', 'הרצל'], ['regular', ' '], ['hebrew', 'רחוב'], ['regular', ' '], ['regular', 'Tel Aviv']]],
];
for (const [name, text, runs] of cases) {
  test(name, () => assert.deepEqual(fontRuns(text).map((r) => [r.font, r.text]), runs));
}

test('bold takes the bold faces', () => {
  assert.deepEqual(fontRuns('שלום 김', 'bold').map((r) => r.font), ['hebrewBold', 'bold', 'koreanBold']);
});
