import type { ServiceRecord, ServiceVersion } from './schemas.ts';
import type { ServiceRow, StoredDefinition, VersionRow } from './store.ts';
import { formatDate } from '../calendar/calendar.ts';
import { withTemplateNames } from '../documents/templateRefs.ts';

/** The fields of the list record that come from one version's definition. */
function definitionRecord(d: StoredDefinition): ServiceVersion['definition'] {
  return {
    serviceCode: d.code,
    serviceLabel: d.name,
    serviceType: d.serviceType,
    chargingType: d.chargingType,
    billingCycleLookupID: d.billingCycle,
    dueDateOffset: d.dueDateOffset,
    postBilling: d.postBilling,
    postType: d.postType,
    paymentSettlementMethod: d.paymentSettlementMethod,
    cashAccountID: d.cashAccountID,
    businessUnitID: d.businessUnitID,
    securityDeposit: d.securityDeposit,
    description: d.description,
    requiredDocs: d.requiredDocs,
    templateID: d.invoiceTemplate.templateID,
    templateName: d.invoiceTemplate.templateName,
    emailTemplateID: d.emailTemplate.templateID,
    emailTemplateName: d.emailTemplate.templateName,
    batches: d.batches,
    values: d.values,
    components: d.components,
    connectionInputs: d.connectionInputs,
    meteredInputs: d.meteredInputs,
    unmeteredInputs: d.unmeteredInputs,
    bankAccounts: d.bankAccounts,
    lateCharge: d.lateCharge ?? null,
  };
}

/** The list record of interface.md (and the definition's arrays) from a stored row. */
export function serviceRecord(row: ServiceRow): ServiceRecord {
  const names = { invoice: row.invoice_template_name, email: row.email_template_name };
  return withTemplateNames({
    ...definitionRecord(row.definition),
    serviceID: Number(row.service_id),
    appCode: row.app_code,
    serviceCode: row.service_code,
    archiveStatus: row.archive_status,
    ts: Number(row.ts),
    createdAt: row.created_at,
    createdBy: row.created_by,
    modifiedAt: row.modified_at,
    modifiedBy: row.modified_by,
    version: row.current_version,
  }, names);
}

/** One immutable version as get-service-versions answers it. */
export function versionRecord(row: VersionRow): ServiceVersion {
  return {
    version: row.version,
    createdAt: row.created_at,
    createdBy: row.created_by,
    effectiveFrom: formatDate(row.effective_from),
    effectiveFromGiven: row.effective_dated,
    definition: definitionRecord(row.definition),
  };
}
