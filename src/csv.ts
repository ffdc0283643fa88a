// CSV as the project writes it (print extract, journal, a simulation's results): RFC 4180,
// CRLF line ends, a field quoted only when it holds a quote, a comma or a line break.
//
// A field opening with = + - @ (or a tab or carriage return) is a formula to a spreadsheet:
// an account named =HYPERLINK(...) ran as one from the print extract (docs/hardening.md).
// A quote in front keeps it text (OWASP's "CSV injection"); a number, negative amounts
// included, is written as it is.
const FORMULA = /^[=+@\t\r]|^-(?![0-9.]+$)/;

export const csvField = (v: unknown): string => {
  const raw = v === null || v === undefined ? '' : String(v);
  const s = FORMULA.test(raw) ? `'${raw}` : raw;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

export const csvLine = (fields: readonly unknown[]): string => fields.map(csvField).join(',') + '\r\n';
