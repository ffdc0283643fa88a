// CSV as the project writes it (print extract, journal): RFC 4180, CRLF line ends, a
// field quoted only when it holds a quote, a comma or a line break.
export const csvField = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

export const csvLine = (fields: readonly unknown[]): string => fields.map(csvField).join(',') + '\r\n';
