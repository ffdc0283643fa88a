// The console's date helpers (console/src/api/dates.ts), without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { atText } from '../../console/src/api/dates.ts';

test("a moment the API writes YYYY-MM-DD HH:MM:SS prints dd/mm/yyyy HH:MM; anything else as it is", () => {
  assert.equal(atText('2026-11-27 17:12:09'), '27/11/2026 17:12');
  assert.equal(atText('2026-11-27T07:05:00'), '27/11/2026 07:05');
  assert.equal(atText('2026-11-27 17:12:09.123456'), '27/11/2026 17:12');
  assert.equal(atText('27/11/2026'), '27/11/2026');
  assert.equal(atText(null), '');
  assert.equal(atText(undefined), '');
});
