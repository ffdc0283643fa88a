// A template's definition as it is kept: every default filled in and every rule
// checked, so that the bill run reads a complete, valid tariff.
import { checkNumber, checkTariff } from '../rating/tariff.ts';
import { checkLateCharge } from '../rating/lateCharge.ts';
import { validationFailed } from '../errors.ts';
import type { ServiceDefinition } from './schemas.ts';
import type { StoredDefinition } from './store.ts';
import type { Queryable } from '../db/pool.ts';
import { appMoney } from '../ledger/common.ts';
import { checkTemplateRefs } from '../documents/templateRefs.ts';
import { incrementIssues } from '../rating/models/totalRounding.ts';

/**
 * What a definition is checked against in its app, inside the transaction that saves it:
 * the document templates it names exist, and its rounding increments are whole steps of
 * the app's currency.
 */
export async function checkDefinitionInApp(tx: Queryable, appCode: number, definition: StoredDefinition): Promise<void> {
  await checkTemplateRefs(tx, appCode, definition);
  const { minorUnits } = await appMoney(tx, appCode);
  const issues = incrementIssues(definition.components, definition.values, minorUnits);
  if (issues.length > 0) throw validationFailed(issues, 'The pricing template is not valid.');
}

export function normalizeDefinition(service: ServiceDefinition): StoredDefinition {
  const issues = checkTariff(service, 'service');
  if (service.lateCharge !== undefined && service.lateCharge !== null) issues.push(...checkLateCharge(service.lateCharge, 'service.lateCharge'));
  if (service.securityDeposit !== undefined && service.securityDeposit !== null) checkNumber(service.securityDeposit, 'service.securityDeposit', 'nonNegative', issues);
  const batches = service.batches ?? [];
  const seen = new Set<string>();
  batches.forEach((b, i) => {
    if (seen.has(b)) issues.push({ path: `service.batches[${i}]`, message: `batch "${b}" is listed twice` });
    seen.add(b);
  });
  // Prepaid advances are found per subscription bill (billRun/prepaid.ts); an account bill
  // does not record them yet, so the two are not combined (docs/templates.md, "Prepaid").
  if (service.chargingType === 'Prepaid' && service.postType === 'Post Account') {
    issues.push({ path: 'service.postType', message: 'Post Account is not available for a Prepaid template: use Post Subscription' });
  }
  if (issues.length > 0) throw validationFailed(issues, 'The pricing template is not valid.');
  return {
    code: service.code,
    name: service.name,
    serviceType: service.serviceType,
    chargingType: service.chargingType,
    postType: service.postType,
    billingCycle: service.billingCycle,
    dueDateOffset: service.dueDateOffset,
    description: service.description ?? '',
    postBilling: service.postBilling ?? 0,
    paymentSettlementMethod: service.paymentSettlementMethod ?? 'Chronology',
    cashAccountID: service.cashAccountID ?? 0,
    businessUnitID: service.businessUnitID ?? 0,
    securityDeposit: service.securityDeposit === undefined || service.securityDeposit === null ? null : String(service.securityDeposit),
    requiredDocs: service.requiredDocs ?? null,
    values: service.values ?? [],
    components: service.components ?? [],
    connectionInputs: service.connectionInputs ?? [],
    meteredInputs: service.meteredInputs ?? [],
    unmeteredInputs: service.unmeteredInputs ?? [],
    bankAccounts: service.bankAccounts ?? [],
    lateCharge: service.lateCharge ?? null,
    batches,
    invoiceTemplate: {
      templateID: service.invoiceTemplate?.templateID ?? 0,
      templateName: service.invoiceTemplate?.templateName ?? '',
    },
    emailTemplate: {
      templateID: service.emailTemplate?.templateID ?? null,
      templateName: service.emailTemplate?.templateName ?? null,
    },
  };
}
