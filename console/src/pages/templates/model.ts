// A template as the form holds it (every field text, arrays as rows) and back to the
// API's creation object. Fields the form does not edit are carried through untouched.
import type { Body, Data } from '../../api/client.ts';

export type ServiceBody = Body<'/billing/services/make-service'>['service'];
export type ServiceRecord = Data<'/billing/services/get-services'>['services'][number];
type ApiComponent = NonNullable<ServiceBody['components']>[number];
type Dec = string | number | { value: string } | undefined;

export const MODELS = ['flat', 'perUnit', 'perDay', 'perUnitPerDay', 'graduated', 'volume', 'package', 'percentage', 'commitment', 'totalRounding'] as const;

/**
 * Each model in a line a billing officer reads (the choices showed the API's names alone:
 * "perUnitPerDay", "totalRounding", an officer's walk). The value stays the API's name.
 */
export const MODEL_CHOICES: { value: (typeof MODELS)[number]; label: string }[] = [
  { value: 'flat', label: 'flat: a fixed amount' },
  { value: 'perUnit', label: 'perUnit: a rate times a quantity' },
  { value: 'perDay', label: 'perDay: a rate for each day billed' },
  { value: 'perUnitPerDay', label: 'perUnitPerDay: a rate per unit per day (demand, capacity)' },
  { value: 'graduated', label: 'graduated: tiers, each priced at its own rate' },
  { value: 'volume', label: 'volume: the tier reached prices all of it' },
  { value: 'package', label: 'package: a price per block of units' },
  { value: 'percentage', label: 'percentage: of other lines (a tax, a levy)' },
  { value: 'commitment', label: 'commitment: a minimum per bill, topped up' },
  { value: 'totalRounding', label: 'totalRounding: rounds the bill to a step' },
];
export type TierV = { upTo: string; rate: string; flat: string };
export type ComponentV = {
  code: string;
  name: string;
  category: 'charge' | 'tax';
  model: (typeof MODELS)[number];
  input: string;
  amount: string;
  rate: string;
  tiers: TierV[];
  size: string;
  price: string;
  freeUnits: string;
  percentage: string;
  of: string[];
  /** totalRounding: the multiple the total is rounded to, and how. */
  increment: string;
  rounding: string;
  prorate: boolean;
  /** graduated: each tier's amount rounded to the cent, the line their sum. */
  roundEachTier: boolean;
  minimum: string;
  maximum: string;
  /**
   * What the form does not edit, carried from the record so that a save keeps it: the
   * component's description, and a tiered model's tierProration. Saved from the form, a
   * template lost its tier proration unasked.
   */
  kept: { description?: string; tierProration?: unknown; inputShare?: unknown; floor?: unknown; excessOver?: unknown; ratchet?: unknown };
};
export type BankV = { bankName: string; accountName: string; accountNumber: string; branch: string; swift: string };
export const emptyBank = (): BankV => ({ bankName: '', accountName: '', accountNumber: '', branch: '', swift: '' });
/** conversion: carried from the record and sent back as it was (the form does not edit it; a save dropped it otherwise). */
/** `register`: 'cumulative', a running total (kWh, m3); 'maximum', a demand register (kW, kVA), billed as read. */
export type MeterV = { code: string; label: string; unit: string; decimals: number; register: 'cumulative' | 'maximum'; registerGiven?: boolean; rolloverAt: string; conversion?: MeterConversion };
/** What a meter's reading holds, as the Reads column says it. */
export const REGISTERS = [
  { value: 'cumulative', label: 'Consumption' },
  { value: 'maximum', label: 'Highest demand' },
] as const;
export type MeterConversion = { factor: string | number | { value: string }; unit: string; decimals: number; rounding?: 'halfUp' | 'down' | 'up' };
/** "billed in therm, x 1.037 (0 decimals)": a meter's conversion in words. */
export const conversionText = (c: MeterConversion) =>
  `billed in ${c.unit}, x ${typeof c.factor === 'object' ? c.factor.value : String(c.factor)} (${c.decimals} decimal${c.decimals === 1 ? '' : 's'}${c.rounding && c.rounding !== 'halfUp' ? `, rounded ${c.rounding}` : ''})`;
export type TemplateV = {
  code: string;
  name: string;
  serviceType: 'Sale' | 'Rental' | 'Subscription';
  /** Kept from the record and editable: every save sent Postpaid and Post Subscription, and turned a Prepaid or Post Account template into one. */
  chargingType: 'Postpaid' | 'Prepaid';
  postType: 'Post Subscription' | 'Post Account';
  billingCycle: string;
  dueDateOffset: number;
  postBilling: boolean;
  description: string;
  batches: string[];
  meteredInputs: MeterV[];
  components: ComponentV[];
  /** The invoice and e-mail templates its bills use ('': the standard ones): a new officer made one and found no way to use it. */
  invoiceTemplateID: string;
  emailTemplateID: string;
  /** Where customers pay, printed on the bills (the default invoice's "How to pay"). */
  bankAccounts: BankV[];
  /** What each subscription records when connected (a meter number): set up through the API alone until a new user's walk. */
  connectionInputs: ConnectionV[];
  /** Named numbers components refer to (a VAT rate), which the percentage field offered without a way to make one. */
  values: ValueV[];
};

/** `requiredGiven`: the version wrote `required` (false too): sent back as it was, so an unchanged save is no new version (a reviewer). */
export type ConnectionV = { code: string; label: string; type: 'string' | 'number' | 'date' | 'boolean'; required: boolean; requiredGiven?: boolean };
export type ValueV = { code: string; label: string; value: string };
export const CONNECTION_TYPES = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'date', label: 'Date' },
  { value: 'boolean', label: 'Yes or no' },
] as const;
export const emptyConnection = (): ConnectionV => ({ code: '', label: '', type: 'string', required: false });
export const emptyValue = (): ValueV => ({ code: '', label: '', value: '' });

export const emptyTier = (): TierV => ({ upTo: '', rate: '', flat: '' });
/**
 * Whether a model prorates by days when the component does not say (the server's default,
 * src/rating/models: flat on, the others off). The form shows it and always sends what it
 * shows: sent only when ticked, an unticked flat charge was prorated all the same (an
 * officer's walk).
 */
export const prorateByDefault = (model: string): boolean => model === 'flat';
export const emptyComponent = (model: ComponentV['model'] = 'flat'): ComponentV => ({
  code: '', name: '', category: 'charge', model, input: '', amount: '', rate: '', tiers: [emptyTier()], size: '', price: '', freeUnits: '', percentage: '', of: [], increment: '', rounding: 'halfUp', prorate: prorateByDefault(model), roundEachTier: false, minimum: '', maximum: '', kept: {},
});

export const emptyTemplate = (): TemplateV => ({
  code: '', name: '', serviceType: 'Sale', chargingType: 'Postpaid', postType: 'Post Subscription', billingCycle: '1', dueDateOffset: 14, postBilling: false, description: '', batches: [], invoiceTemplateID: '', emailTemplateID: '', bankAccounts: [], connectionInputs: [], values: [],
  meteredInputs: [{ code: 'METER', label: 'Meter', unit: 'm3', decimals: 0, register: 'cumulative', rolloverAt: '' }],
  // A standing charge and a tiered charge on the meter: the shape most utility tariffs start from.
  components: [
    { ...emptyComponent(), code: 'STANDING', name: 'Standing charge' },
    { ...emptyComponent('graduated'), code: 'USAGE', name: 'Usage', input: 'METER', tiers: [emptyTier(), emptyTier()] },
  ],
});

type VersionRecord = Data<'/billing/services/get-service-versions'>['versions'][number];
/** An earlier or dated version read as the list record it was then, so one view and one form serve every version. */
export const recordOfVersion = (current: ServiceRecord, v: VersionRecord): ServiceRecord => ({
  ...current,
  ...v.definition,
  version: v.version,
  createdAt: v.createdAt,
  createdBy: v.createdBy,
  modifiedAt: v.createdAt,
  modifiedBy: v.createdBy,
});

const text = (d: Dec | null): string => (d === undefined || d === null ? '' : typeof d === 'object' ? d.value : String(d));
/** A decimal, or the code of one of the template's values ({ value: CODE }). */
const dec = (s: string): string | { value: string } => (/^-?\d/.test(s.trim()) || s.trim() === '' ? s.trim() : { value: s.trim() });

export function fromRecord(r: ServiceRecord): TemplateV {
  return {
    code: r.serviceCode,
    name: r.serviceLabel,
    serviceType: r.serviceType as TemplateV['serviceType'],
    chargingType: r.chargingType as TemplateV['chargingType'],
    postType: r.postType as TemplateV['postType'],
    billingCycle: String(r.billingCycleLookupID),
    dueDateOffset: r.dueDateOffset,
    postBilling: r.postBilling === 1,
    description: r.description,
    batches: r.batches,
    invoiceTemplateID: r.templateID ? String(r.templateID) : '',
    emailTemplateID: r.emailTemplateID ? String(r.emailTemplateID) : '',
    bankAccounts: r.bankAccounts.map((b) => ({ bankName: b.bankName, accountName: b.accountName ?? '', accountNumber: b.accountNumber, branch: b.branch ?? '', swift: b.swift ?? '' })),
    connectionInputs: (r.connectionInputs ?? []).map((c) => ({ code: c.code, label: c.label, type: c.type, required: c.required === true, ...(c.required !== undefined ? { requiredGiven: true } : {}) })),
    values: (r.values ?? []).map((x) => ({ code: x.code, label: x.label, value: String(x.value) })),
    meteredInputs: r.meteredInputs.map((m) => ({ code: m.code, label: m.label, unit: m.unit, decimals: m.decimals, register: m.register ?? 'cumulative', ...(m.register !== undefined ? { registerGiven: true } : {}), rolloverAt: m.rolloverAt === undefined ? '' : String(m.rolloverAt), ...(m.conversion ? { conversion: m.conversion } : {}) })),
    components: r.components.map((c) => {
      const v: ComponentV = { ...emptyComponent(), code: c.code, name: c.name, category: c.category ?? 'charge', model: c.model, prorate: 'prorate' in c && c.prorate !== undefined ? !!c.prorate : prorateByDefault(c.model), roundEachTier: 'roundEachTier' in c && c.roundEachTier === true, minimum: text(c.minimum), maximum: text(c.maximum), kept: keptOf(c) };
      if (c.model === 'flat') v.amount = text(c.amount);
      if (c.model === 'perUnit') Object.assign(v, { input: c.input, rate: text(c.rate) });
      if (c.model === 'perDay') v.rate = text(c.rate);
      if (c.model === 'perUnitPerDay') Object.assign(v, { input: c.input, rate: text(c.rate) });
      if (c.model === 'graduated' || c.model === 'volume')
        Object.assign(v, { input: c.input, tiers: c.tiers.map((t) => ({ upTo: t.upTo === null ? '' : String(t.upTo), rate: text(t.rate), flat: text(t.flat) })) });
      if (c.model === 'package') Object.assign(v, { input: c.input, size: String(c.size), price: text(c.price), freeUnits: c.freeUnits === undefined ? '' : String(c.freeUnits) });
      if (c.model === 'commitment') Object.assign(v, { amount: text(c.amount), of: c.of });
      if (c.model === 'percentage') Object.assign(v, { percentage: text(c.percentage), of: c.of });
      if (c.model === 'totalRounding') Object.assign(v, { increment: text(c.increment), rounding: c.rounding ?? 'halfUp', of: c.of });
      return v;
    }),
  };
}

/** The fields of a stored component the form does not edit (ComponentV.kept). */
function keptOf(c: ApiComponent): ComponentV['kept'] {
  const kept: ComponentV['kept'] = {};
  if ('description' in c && c.description !== undefined) kept.description = c.description;
  if ('tierProration' in c && c.tierProration !== undefined) kept.tierProration = c.tierProration;
  // A share of the consumption (sewage on 70% of the water): shown on the template's page, kept through a save.
  if ('inputShare' in c && c.inputShare !== undefined) kept.inputShare = c.inputShare;
  // A quantity held against the subscription's level (a floor of 60% of the contract demand, the excess over a notified demand): kept the same way.
  if ('floor' in c && c.floor !== undefined) kept.floor = c.floor;
  if ('excessOver' in c && c.excessOver !== undefined) kept.excessOver = c.excessOver;
  if ('ratchet' in c && c.ratchet !== undefined) kept.ratchet = c.ratchet;
  return kept;
}

function toComponent(c: ComponentV): ApiComponent {
  const common = {
    code: c.code.trim(),
    name: c.name.trim(),
    ...(c.kept.description !== undefined ? { description: c.kept.description } : {}),
    category: c.category,
    ...(c.minimum.trim() ? { minimum: dec(c.minimum) } : {}),
    ...(c.maximum.trim() ? { maximum: dec(c.maximum) } : {}),
  };
  const prorate = { prorate: c.prorate };
  const share = c.kept.inputShare !== undefined ? { inputShare: c.kept.inputShare as never } : {};
  const bound = {
    ...(c.kept.floor !== undefined ? { floor: c.kept.floor as never } : {}),
    ...(c.kept.excessOver !== undefined ? { excessOver: c.kept.excessOver as never } : {}),
    ...(c.kept.ratchet !== undefined ? { ratchet: c.kept.ratchet as never } : {}),
  };
  switch (c.model) {
    case 'flat':
      return { ...common, ...prorate, model: 'flat', amount: dec(c.amount) };
    case 'perUnit':
      return { ...common, ...prorate, ...share, ...bound, model: 'perUnit', input: c.input, rate: dec(c.rate) };
    case 'perDay':
      return { ...common, model: 'perDay', rate: dec(c.rate) };
    case 'perUnitPerDay':
      return { ...common, ...bound, model: 'perUnitPerDay', input: c.input, rate: dec(c.rate) };
    case 'graduated':
    case 'volume':
      return {
        ...common,
        ...prorate,
        ...(c.kept.tierProration !== undefined ? { tierProration: c.kept.tierProration as never } : {}),
        ...(c.model === 'graduated' && c.roundEachTier ? { roundEachTier: true } : {}),
        ...share,
        ...bound,
        model: c.model,
        input: c.input,
        tiers: c.tiers.map((t) => ({ upTo: t.upTo.trim() === '' ? null : t.upTo.trim(), rate: dec(t.rate), ...(t.flat.trim() ? { flat: dec(t.flat) } : {}) })),
      };
    case 'package':
      return { ...common, ...prorate, ...share, ...bound, model: 'package', input: c.input, size: c.size.trim(), price: dec(c.price), ...(c.freeUnits.trim() ? { freeUnits: c.freeUnits.trim() } : {}) };
    case 'percentage':
      return { ...common, model: 'percentage', percentage: dec(c.percentage), of: c.of };
    case 'commitment':
      return { ...common, ...prorate, model: 'commitment', amount: dec(c.amount), of: c.of };
    case 'totalRounding':
      return { code: common.code, name: common.name, ...(c.kept.description !== undefined ? { description: c.kept.description } : {}), category: common.category, model: 'totalRounding', increment: dec(c.increment), rounding: c.rounding as 'halfUp', of: c.of };
  }
}

/** The creation object: the form's fields over the record's others (values, inputs, bank accounts ...). */
export function toBody(v: TemplateV, base: ServiceRecord | null, documentName: (id: string) => string | undefined = () => undefined): ServiceBody {
  // A document template's name: the one it has now, else the one the version kept.
  const named = (id: string, baseID: number | null | undefined, baseName: string | null | undefined) => {
    const name = documentName(id) ?? (String(baseID) === id ? baseName : undefined);
    return name ? { templateName: name } : {};
  };
  return {
    code: v.code.trim(),
    name: v.name.trim(),
    serviceType: v.serviceType,
    chargingType: v.chargingType,
    postType: v.postType,
    billingCycle: Number(v.billingCycle),
    dueDateOffset: v.dueDateOffset,
    description: v.description,
    postBilling: v.postBilling ? 1 : 0,
    batches: v.batches,
    meteredInputs: v.meteredInputs.map((m) => ({ code: m.code.trim(), label: m.label.trim(), unit: m.unit.trim(), decimals: m.decimals, ...(m.register === 'maximum' || m.registerGiven ? { register: m.register } : {}), ...(m.rolloverAt.trim() ? { rolloverAt: m.rolloverAt.trim() } : {}), ...(m.conversion ? { conversion: m.conversion } : {}) })),
    components: v.components.map(toComponent),
    // Sent when there are some, or were (an empty list where the version had none is no change to save).
    ...(v.values.length > 0 || base?.values !== undefined ? { values: v.values.map((x) => ({ code: x.code.trim(), label: x.label.trim(), value: x.value.trim() })) } : {}),
    ...(v.connectionInputs.length > 0 || base?.connectionInputs !== undefined
      ? { connectionInputs: v.connectionInputs.map((c) => ({ code: c.code.trim(), label: c.label.trim(), type: c.type, ...(c.required || c.requiredGiven ? { required: c.required } : {}) })) }
      : {}),
    ...(base
      ? {
          unmeteredInputs: base.unmeteredInputs,
          requiredDocs: base.requiredDocs,
          securityDeposit: base.securityDeposit,
          cashAccountID: base.cashAccountID,
          businessUnitID: base.businessUnitID,
          lateCharge: base.lateCharge,
          paymentSettlementMethod: base.paymentSettlementMethod as NonNullable<ServiceBody['paymentSettlementMethod']>,
        }
      : {}),
    bankAccounts: v.bankAccounts.map((b) => ({
      bankName: b.bankName.trim(),
      accountNumber: b.accountNumber.trim(),
      ...(b.accountName.trim() ? { accountName: b.accountName.trim() } : {}),
      ...(b.branch.trim() ? { branch: b.branch.trim() } : {}),
      ...(b.swift.trim() ? { swift: b.swift.trim() } : {}),
    })),
    // With the name, as the version keeps it: sent by id alone, a saved version lost its document templates' names (a reviewer).
    invoiceTemplate: v.invoiceTemplateID ? { templateID: Number(v.invoiceTemplateID), ...named(v.invoiceTemplateID, base?.templateID, base?.templateName) } : null,
    emailTemplate: v.emailTemplateID ? { templateID: Number(v.emailTemplateID), ...named(v.emailTemplateID, base?.emailTemplateID, base?.emailTemplateName) } : null,
  };
}

export const CYCLES = [
  { value: '1', label: 'Monthly' },
  { value: '2', label: 'Bi-monthly' },
  { value: '3', label: 'Quarterly' },
  { value: '4', label: 'Half-yearly' },
  { value: '5', label: 'Yearly' },
];
