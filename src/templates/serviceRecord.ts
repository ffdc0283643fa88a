import type { ServiceRecord } from './schemas.ts';
import type { ServiceRow } from './store.ts';

/** The list record of interface.md (and the definition's arrays) from a stored row. */
export function serviceRecord(row: ServiceRow): ServiceRecord {
  const d = row.definition;
  return {
    serviceID: Number(row.service_id),
    appCode: row.app_code,
    serviceCode: row.service_code,
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
    archiveStatus: row.archive_status,
    ts: Number(row.ts),
    createdAt: row.created_at,
    createdBy: row.created_by,
    modifiedAt: row.modified_at,
    modifiedBy: row.modified_by,
    version: row.current_version,
    batches: d.batches,
    values: d.values,
    components: d.components,
    connectionInputs: d.connectionInputs,
    meteredInputs: d.meteredInputs,
    unmeteredInputs: d.unmeteredInputs,
    bankAccounts: d.bankAccounts,
  };
}
