// The payment reference printed on a bill: an ISO 11649 creditor reference ("RF" and
// two check digits) of the bill number, which banks check as they take it, so a typo
// in a payer's reference is caught at the bank rather than left unmatched.
const groups = (s: string) => s.replace(/(.{4})(?=.)/g, '$1 ');

export function paymentReference(billNumber: string): string {
  // Ten digits at least, so that every reference of an app looks alike on paper.
  const body = billNumber.replace(/^0+(?=.)/, '').padStart(10, '0');
  // "RF00" moved behind the reference, letters as numbers (R = 27, F = 15).
  const numeric = BigInt(`${body}271500`);
  const check = String(98n - (numeric % 97n)).padStart(2, '0');
  return groups(`RF${check}${body}`);
}
