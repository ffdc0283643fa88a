// An event's body as an endpoint, get-events and a replay receive it. Most events store it
// (event.data); a per-bill event of a posting or of the late charges stores only its bill
// (event.source_id, migration 103) and its body is rendered here from rows that do not change
// once written: the bill as posted (its status in the body is the one it was posted with),
// its late charge. The one statement of both bodies: recordBillEvents and the late-charge job
// write the lean rows, dispatch and listEvents read them through this.

/** SQL for the body of the event aliased `e` (jsonb). */
export const eventBodySql = (e: string): string => `CASE
  WHEN ${e}.data IS NOT NULL THEN ${e}.data
  WHEN ${e}.type = 'bill.posted' THEN (
    SELECT jsonb_build_object('billID', b.bill_id, 'billNumber', b.bill_number, 'termID', b.term_id,
                              'accountID', b.account_id, 'accountNumber', ac.account_number,
                              'subscriptionID', b.subscription_id, 'status', 'posted',
                              'billDate', to_char(b.bill_date, 'DD/MM/YYYY'), 'dueDate', to_char(b.due_date, 'DD/MM/YYYY'),
                              'total', round(b.total, a.minor_units)::text, 'totalDue', round(b.total_due, a.minor_units)::text)
      FROM bill b JOIN account ac ON ac.account_id = b.account_id JOIN app a ON a.app_code = b.app_code
     WHERE b.bill_id = ${e}.source_id)
  WHEN ${e}.type = 'late_charge.made' THEN (
    SELECT jsonb_build_object('billID', lc.bill_id, 'billNumber', b.bill_number,
                              'accountID', lc.account_id, 'dueDate', to_char(b.due_date, 'DD/MM/YYYY'),
                              'chargeDate', to_char(lc.charge_date, 'DD/MM/YYYY'),
                              'overdue', round(lc.overdue, a.minor_units)::text, 'amount', round(lc.amount, a.minor_units)::text)
      FROM late_charge lc JOIN bill b ON b.bill_id = lc.bill_id JOIN app a ON a.app_code = lc.app_code
     WHERE lc.bill_id = ${e}.source_id)
END`;
