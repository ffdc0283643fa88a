// What a template can read: the one shape every invoice and e-mail template is filled
// with (docs/documents.md lists it), built from a stored bill by billContext.ts, and
// the sample bill that previews and the check at save time use.

export type BillLineData = {
  name: string;
  category: string;
  quantity: string;
  unit: string;
  rate: string;
  amount: string;
  explanation: string;
  /**
   * On a bill spanning a tariff change, the days the line is for (dd/mm/yyyy), and its
   * version: each line is repeated per version, and printed undated the customer could not
   * tell the two prices apart (an outside check). Empty, and version 0, on other lines.
   */
  periodStart: string;
  periodEnd: string;
  version: number;
  /**
   * A line prorated by days: how many it is for ("17 of 31 days"); empty otherwise. Its
   * quantity and rate are the whole period's: "1 x 250.00 = 137.10" did not add up to a
   * customer without it (a new user's walk).
   */
  prorated: string;
};
export type ReadingData = {
  input: string;
  unit: string;
  previousDate: string;
  previousValue: string;
  currentDate: string;
  currentValue: string;
  consumption: string;
  /** A meter whose consumption is converted before it is priced: what was billed ("76 therm"); '' otherwise (and on a bill rated in segments, whose lines' explanations say each part's). */
  billed: string;
  /** Either reading was an estimate. */
  estimated: boolean;
  /** The previous reading was an estimate. */
  previousEstimated: boolean;
  /** A demand register: `currentValue` is the period's highest demand, billed as read; the previous reading is when the register was reset. */
  maximum: boolean;
  /** The current reading was an estimate (on a bill made before 2026-11-26: either was). */
  currentEstimated: boolean;
};
/** `unit`: the consumption's, when its meters share one (kWh), else '' ("Used 5850" had none: a new user's walk). */
export type HistoryData = { number: string; date: string; periodStart: string; periodEnd: string; total: string; consumption: string; unit: string };
/** A Post Account bill's part for one subscription (empty list on other bills). */
/** A subscription's connection inputs (its meter number, the customer's reference at the utility ...), each with the label its pricing template gives it. */
export type ConnectionInputData = { code: string; label: string; value: string };

export type SubscriptionGroupData = {
  id: string;
  /** Its connection inputs as "CODE: value" text (the meter number ...). */
  connection: string;
  inputs: ConnectionInputData[];
  periodStart: string;
  periodEnd: string;
  charges: string;
  tax: string;
  total: string;
  estimated: boolean;
  lines: BillLineData[];
};
export type BankAccountData = { bankName: string; accountName: string; accountNumber: string; branch: string; swift: string };

export type DocumentData = {
  /** addressLines: the address split at its line breaks (a value written by {{ }} is one line, so a multi-line address printed as one; a window envelope needs its lines). */
  /** `taxNumber`: the supplier's tax registration (VAT) number, '' for none. */
  app: { name: string; address: string; addressLines: string[]; currency: string; taxNumber: string };
  account: { name: string; number: string; address: string; addressLines: string[]; email: string };
  service: { code: string; name: string; bankAccounts: BankAccountData[] };
  bill: {
    id: string;
    number: string;
    date: string;
    dueDate: string;
    periodStart: string;
    periodEnd: string;
    currency: string;
    charges: string;
    tax: string;
    total: string;
    balanceBroughtForward: string;
    totalDue: string;
    /**
     * A final bill (its subscription ends in its period) of a subscription holding a security
     * deposit: what was held, what of it pays the subscription's bills (applied when the term is
     * posted, or already), the rest, refunded (empty when nothing is), and the part of the
     * deposit still unpaid, cancelled (empty when none). Null otherwise. A final bill paid by the
     * deposit asked "Total due: 34.52" of a customer owed 65.48 (an outside check of a
     * utility's closing bill).
     */
    deposit: { held: string; applied: string; refund: string; cancelled: string } | null;
    /** What the customer is to pay: totalDue less the deposit applied and its unpaid part cancelled; totalDue when there is none. */
    amountToPay: string;
    /**
     * Whether the customer has anything to pay: amountToPay above zero. A bill whose balance
     * brought forward exceeds its total leaves the account in credit; the standard bill said
     * "Total due: -43.47 by 11/12/2026" and "How to pay" (an outside check).
     */
    payable: boolean;
    /** The account's credit after this bill, as a positive amount, when amountToPay is below zero; empty otherwise. */
    credit: string;
    estimated: boolean;
    paymentReference: string;
    lines: BillLineData[];
    /** A Post Account bill: its subscriptions, each with its own lines and subtotal; empty otherwise. */
    subscriptions: SubscriptionGroupData[];
    /**
     * The subscription a bill of one subscription is for, with its connection inputs: a
     * utility prints the meter number, and no template could reach it (an outside check
     * of real bills). Null on a Post Account bill, which has bill.subscriptions.
     */
    subscription: { id: string; connection: string; inputs: ConnectionInputData[] } | null;
    readings: ReadingData[];
    history: HistoryData[];
    /** A rebill: the cancelled bill it replaces and the credit note that cancelled it; null otherwise. */
    replaces: { number: string; date: string; creditNoteNumber: string } | null;
    /**
     * What moved the account since its last bill, up to this bill's balance brought forward:
     * payments, their reversals, adjustments and late payment charges, credit notes, other
     * bills. previousBalance + the entries' amounts = balanceBroughtForward. The last
     * ACTIVITY_SHOWN entries; `earlier` counts those left out (their sum is in previousBalance,
     * which is then the balance before the entries shown, not after the last bill).
     */
    activity: { previousBalance: string; entries: ActivityData[]; earlier: number };
  };
};
export type ActivityData = { date: string; description: string; amount: string };

/** An address's lines: split at line breaks, each trimmed, empty ones left out. */
export const addressLines = (address: string): string[] =>
  address
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** A bill with every part filled, so that a template checked against it can render any real bill. */
export const SAMPLE: DocumentData = Object.freeze({
  app: { name: 'Sample Water Co', address: '1 Reservoir Road\nNairobi', addressLines: ['1 Reservoir Road', 'Nairobi'], currency: 'KES', taxNumber: 'P051234567X' },
  account: { name: 'Zoë Жанна Ελένη مريم 王芳', number: 'ACC-0001', address: '12 River Lane\nNairobi', addressLines: ['12 River Lane', 'Nairobi'], email: 'customer@example.com' },
  service: {
    code: 'WATER',
    name: 'Domestic water',
    bankAccounts: [{ bankName: 'Sample Bank', accountName: 'Sample Water Co', accountNumber: '0123456789', branch: 'City', swift: 'SMPLKENA' }],
  },
  bill: {
    id: '1',
    number: '1001',
    date: '30/11/2026',
    dueDate: '14/12/2026',
    periodStart: '01/11/2026',
    periodEnd: '30/11/2026',
    currency: 'KES',
    charges: '1855.00',
    tax: '296.80',
    total: '2151.80',
    balanceBroughtForward: '40.00',
    totalDue: '2191.80',
    deposit: null,
    amountToPay: '2191.80',
    payable: true,
    credit: '',
    estimated: false,
    paymentReference: 'RF40 0000 0010 01',
    lines: [
      { name: 'Standing charge', category: 'charge', quantity: '1', unit: '', rate: '150.00', amount: '150.00', explanation: 'Standing charge: flat 150.00.', periodStart: '', periodEnd: '', version: 0, prorated: '' },
      {
        name: 'Water',
        category: 'charge',
        quantity: '25',
        unit: 'm3',
        rate: '',
        amount: '1550.00',
        explanation: 'Water: METER read 100 on 31/10/2026 and 125 on 30/11/2026: 25 used; tier 1: 10 x 50 = 500.00; tier 2: 15 x 70 = 1050.00.',
        periodStart: '',
        periodEnd: '',
        version: 0,
        prorated: '',
      },
      { name: 'VAT', category: 'tax', quantity: '1', unit: '', rate: '16%', amount: '296.80', explanation: 'VAT: 16% of 1855.00.', periodStart: '', periodEnd: '', version: 0, prorated: '' },
    ],
    subscriptions: [],
    subscription: { id: '501', connection: 'METER_NO: M-1042', inputs: [{ code: 'METER_NO', label: 'Meter number', value: 'M-1042' }] },
    readings: [
      { input: 'Water meter', unit: 'm3', previousDate: '31/10/2026', previousValue: '100', currentDate: '30/11/2026', currentValue: '125', consumption: '25', billed: '', estimated: false, previousEstimated: false, currentEstimated: false, maximum: false },
    ],
    history: [{ number: '901', date: '31/10/2026', periodStart: '01/10/2026', periodEnd: '31/10/2026', total: '1980.40', consumption: '23', unit: 'm3' }],
    replaces: { number: '998', date: '30/11/2026', creditNoteNumber: '12' },
    activity: {
      previousBalance: '2020.00',
      entries: [
        { date: '10/11/2026', description: 'Payment RF-0901', amount: '-2000.00' },
        { date: '15/11/2026', description: 'Late payment charge on bill 901 (due 14/11/2026)', amount: '20.00' },
      ],
      earlier: 0,
    },
  },
}) as DocumentData;

/**
 * The sample with no connection inputs: a subscription may have none. A template is filled
 * with both at save, so one that reads an input without asking whether there is one
 * (`bill.subscription.inputs[0].value`) is refused then, not at that customer's bill (a
 * reviewer's finding).
 */
/**
 * The sample bill under an app's own name, address and currency: what a preview shows. An
 * officer previewed an e-mail signed "Sample Water Co" in KES, and took it for what the
 * customers would get. A template is still checked against SAMPLE itself (its limits).
 */
export const sampleOfApp = (app: { name: string; address: string | null; currency: string; tax_number?: string | null }): DocumentData => ({
  ...SAMPLE,
  app: { name: app.name, address: app.address ?? '', addressLines: addressLines(app.address ?? ''), currency: app.currency, taxNumber: app.tax_number ?? '' },
  service: { ...SAMPLE.service, bankAccounts: SAMPLE.service.bankAccounts.map((b) => ({ ...b, accountName: app.name })) },
  bill: { ...SAMPLE.bill, currency: app.currency },
});

/**
 * The sample's other form, which a template is also checked against: no connection inputs,
 * and a final bill its security deposit paid (bill.deposit set, nothing to pay, a refund).
 */
export const SAMPLE_WITHOUT_INPUTS: DocumentData = Object.freeze({
  ...SAMPLE,
  bill: {
    ...SAMPLE.bill,
    subscription: { id: '502', connection: '', inputs: [] },
    deposit: { held: '5000.00', applied: '2191.80', refund: '2808.20', cancelled: '' },
    amountToPay: '0.00',
    payable: false,
    credit: '',
  },
}) as DocumentData;
