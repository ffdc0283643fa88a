// The invoice and e-mail templates shipped with the product: templateID 0, used by a
// pricing template that names none. They are code, not rows, so every app has them
// and an upgrade of the product improves them; an app that wants its own makes one.

export const DEFAULT_TEMPLATE_ID = 0;
export const DEFAULT_VERSION = 1;
export const DEFAULT_INVOICE_NAME = 'Standard bill';
export const DEFAULT_EMAIL_NAME = 'Standard bill e-mail';

export const DEFAULT_INVOICE_BODY = `# {{ app.name }}
{% for l in app.addressLines %}> {{ l }}
{% endfor %}{% if app.taxNumber != blank %}> Tax number {{ app.taxNumber }}
{% endif %}---
{{ account.name }}
{% for l in account.addressLines %}{{ l }}
{% endfor %}
## Bill {{ bill.number }}{% if bill.estimated %} (estimated){% endif %}
{% if bill.replaces %}> This bill replaces bill {{ bill.replaces.number }} of {{ bill.replaces.date }}, cancelled by credit note {{ bill.replaces.creditNoteNumber }}.
{% endif %}| Customer | {{ account.name }} | Bill number | {{ bill.number }} |
| Account number | {{ account.number }} | Bill date | {{ bill.date }} |
| Address | {{ account.addressLines | join: ", " }} | Period | {{ bill.periodStart }} to {{ bill.periodEnd }} |
| Tariff | {{ service.name }} | Due date | {{ bill.dueDate }} |
{% if bill.subscription and bill.subscription.inputs.size > 0 %}| {% for i in bill.subscription.inputs %}{{ i.label }}{% unless forloop.last %}, {% endunless %}{% endfor %} | {% for i in bill.subscription.inputs %}{{ i.value }}{% unless forloop.last %}, {% endunless %}{% endfor %} | Subscription | {{ bill.subscription.id }} |
{% endif %}
## Charges
{% if bill.subscriptions.size > 0 %}{% for s in bill.subscriptions %}**Subscription {{ s.id }}{% if s.connection != blank %} ({{ s.connection }}){% endif %}, {{ s.periodStart }} to {{ s.periodEnd }}{% if s.estimated %} (estimated){% endif %}**
| Description | Quantity | Rate | Amount ({{ bill.currency }}) |
|---|--:|--:|--:|
{% for line in s.lines %}| {{ line.name }}{% if line.periodStart != blank %} ({{ line.periodStart }} to {{ line.periodEnd }}){% endif %}{% if line.prorated != blank %} ({{ line.prorated }}){% endif %} | {{ line.quantity }}{% if line.unit != blank %} {{ line.unit }}{% endif %} | {{ line.rate }} | {{ line.amount }} |
{% endfor %}| Subtotal of subscription {{ s.id }} | | | {{ s.total }} |

{% endfor %}{% else %}| Description | Quantity | Rate | Amount ({{ bill.currency }}) |
|---|--:|--:|--:|
{% for line in bill.lines %}| {{ line.name }}{% if line.periodStart != blank %} ({{ line.periodStart }} to {{ line.periodEnd }}){% endif %}{% if line.prorated != blank %} ({{ line.prorated }}){% endif %} | {{ line.quantity }}{% if line.unit != blank %} {{ line.unit }}{% endif %} | {{ line.rate }} | {{ line.amount }} |
{% endfor %}{% endif %}
| Summary | Amount ({{ bill.currency }}) |
|---|--:|
| Charges | {{ bill.charges }} |
| Tax | {{ bill.tax }} |
| Total of this bill | {{ bill.total }} |
| Balance brought forward | {{ bill.balanceBroughtForward }} |
{% if bill.deposit %}| Total due | {{ bill.totalDue }} |
{% if bill.deposit.cancelled != blank %}| The unpaid part of your security deposit, cancelled | -{{ bill.deposit.cancelled }} |
{% endif %}| Your security deposit of {{ bill.deposit.held }} applied | -{{ bill.deposit.applied }} |
{% endif %}{% if bill.payable %}| Total due by {{ bill.dueDate }} | {{ bill.amountToPay }} |{% elsif bill.credit != blank %}| In credit after this bill: nothing to pay | {{ bill.credit }} |{% else %}| Nothing to pay | {{ bill.amountToPay }} |{% endif %}
{% if bill.deposit and bill.deposit.refund != blank %}| The rest of your deposit, refunded to you | {{ bill.deposit.refund }} |
{% endif %}
{% if bill.activity.entries.size > 0 %}
## Since your last bill
| Account activity | Amount ({{ bill.currency }}) |
|---|--:|
| {% if bill.activity.earlier > 0 %}Balance after your last bill and {{ bill.activity.earlier }} more entries{% else %}Balance after your last bill{% endif %} | {{ bill.activity.previousBalance }} |
{% for e in bill.activity.entries %}| {{ e.date }} {{ e.description }} | {{ e.amount }} |
{% endfor %}| Balance brought forward | {{ bill.balanceBroughtForward }} |
{% endif %}
{% if bill.payable %}**Total due: {{ bill.amountToPay }} {{ bill.currency }} by {{ bill.dueDate }}**{% elsif bill.credit != blank %}**Nothing to pay: your account is {{ bill.credit }} {{ bill.currency }} in credit, which is taken off your next bill.**{% else %}**Nothing to pay.**{% endif %}
{% if bill.readings.size > 0 %}
## Meter readings
| Meter | Previous reading | This reading | Used |
|---|--:|--:|--:|
{% for r in bill.readings %}{% if r.maximum %}| {{ r.input }} | reset on {{ r.previousDate }} | {{ r.currentValue }} on {{ r.currentDate }}{% if r.currentEstimated %} (estimated){% endif %} | {{ r.consumption }} {{ r.unit }} highest demand{% if r.billed != blank %} ({{ r.billed }} billed){% endif %} |{% else %}| {{ r.input }} | {{ r.previousValue }} on {{ r.previousDate }}{% if r.previousEstimated %} (estimated){% endif %} | {{ r.currentValue }} on {{ r.currentDate }}{% if r.currentEstimated %} (estimated){% endif %} | {{ r.consumption }} {{ r.unit }}{% if r.billed != blank %} ({{ r.billed }} billed){% endif %} |{% endif %}
{% endfor %}{% endif %}
## How each line was reached
{% for line in bill.lines %}> {{ line.explanation }}
{% endfor %}{% if bill.history.size > 0 %}
## Your last bills
| Bill | Date | Period | Used | Total ({{ bill.currency }}) |
|---|---|---|--:|--:|
{% for h in bill.history %}| {{ h.number }} | {{ h.date }} | {{ h.periodStart }} to {{ h.periodEnd }} | {{ h.consumption }}{% if h.unit != blank %} {{ h.unit }}{% endif %} | {{ h.total }} |
{% endfor %}{% endif %}{% if bill.payable %}
## How to pay
**Payment reference: {{ bill.paymentReference }}**
> Please quote the payment reference with every payment.
{% if service.bankAccounts.size > 0 %}| Bank | Account name | Account number | Branch | SWIFT |
|---|---|---|---|---|
{% for b in service.bankAccounts %}| {{ b.bankName }} | {{ b.accountName }} | {{ b.accountNumber }} | {{ b.branch }} | {{ b.swift }} |
{% endfor %}{% endif %}{% endif %}`;

export const DEFAULT_EMAIL_SUBJECT =
  'Your {{ app.name }} bill {{ bill.number }}: {% if bill.payable %}{{ bill.amountToPay }} {{ bill.currency }} due {{ bill.dueDate }}{% elsif bill.credit != blank %}nothing to pay, {{ bill.credit }} {{ bill.currency }} in credit{% else %}nothing to pay{% endif %}';

export const DEFAULT_EMAIL_BODY = `Dear {{ account.name }},

your bill {{ bill.number }} for {{ bill.periodStart }} to {{ bill.periodEnd }} (account {{ account.number }}) is attached.
{% if bill.replaces %}
It replaces bill {{ bill.replaces.number }} of {{ bill.replaces.date }}, which credit note {{ bill.replaces.creditNoteNumber }} cancelled (the credit note is attached too); what you paid towards that bill counts towards this one.
{% endif %}
{% if bill.deposit %}Your security deposit of {{ bill.deposit.held }} {{ bill.currency }} pays {{ bill.deposit.applied }} of this final bill{% if bill.deposit.refund != blank %}, and the rest, {{ bill.deposit.refund }} {{ bill.currency }}, is refunded to you{% endif %}.
{% endif %}{% if bill.payable %}Total due: {{ bill.amountToPay }} {{ bill.currency }} by {{ bill.dueDate }}.
Payment reference: {{ bill.paymentReference }} (please quote it with every payment){% elsif bill.credit != blank %}Nothing to pay: your account is {{ bill.credit }} {{ bill.currency }} in credit, which is taken off your next bill.{% else %}Nothing to pay.{% endif %}

{{ app.name }}
`;

/**
 * The credit note's layout (creditNoteDocument.ts): the bill's data as for an invoice,
 * plus `creditNote` (number, date, reason, the bill it cancels, the rebill, the lines
 * reversed and the totals credited, negative). Shipped with the product like the
 * bill's; an app cannot replace it yet (docs/corrections.md).
 */
export const DEFAULT_CREDIT_NOTE_BODY = `# {{ app.name }}
{% for l in app.addressLines %}> {{ l }}
{% endfor %}{% if app.taxNumber != blank %}> Tax number {{ app.taxNumber }}
{% endif %}---
{{ account.name }}
{% for l in account.addressLines %}{{ l }}
{% endfor %}
## Credit note {{ creditNote.number }}
| Customer | {{ account.name }} | Credit note number | {{ creditNote.number }} |
| Account number | {{ account.number }} | Credit note date | {{ creditNote.date }} |
| Address | {{ account.addressLines | join: ", " }} | Cancels bill | {{ bill.number }} of {{ bill.date }} |
| Tariff | {{ service.name }} | Replaced by bill | {% if creditNote.rebillNumber != blank %}{{ creditNote.rebillNumber }}{% else %}none{% endif %} |

> This credit note cancels bill {{ bill.number }} (period {{ bill.periodStart }} to {{ bill.periodEnd }}, total {{ bill.total }} {{ bill.currency }}). Reason: {{ creditNote.reason }}

## Lines reversed
| Description | Quantity | Rate | Amount ({{ bill.currency }}) |
|---|--:|--:|--:|
{% for line in creditNote.lines %}| {{ line.name }}{% if line.periodStart != blank %} ({{ line.periodStart }} to {{ line.periodEnd }}){% endif %}{% if line.prorated != blank %} ({{ line.prorated }}){% endif %} | {{ line.quantity }}{% if line.unit != blank %} {{ line.unit }}{% endif %} | {{ line.rate }} | {{ line.amount }} |
{% endfor %}
| Summary | Amount ({{ bill.currency }}) |
|---|--:|
| Charges credited | {{ creditNote.charges }} |
| Tax credited | {{ creditNote.tax }} |
| Total credited | {{ creditNote.amount }} |

**Total credited: {{ creditNote.amount }} {{ bill.currency }}**
{% if creditNote.rebillNumber != blank %}
> Bill {{ creditNote.rebillNumber }} replaces bill {{ bill.number }}; payments made against bill {{ bill.number }} count towards it.
{% endif %}`;


/**
 * The e-mail of a credit note whose bill was cancelled without a rebill (delivery/
 * sendDelivery.ts), the note's PDF attached: the data of the note's document
 * (creditNoteDocument.ts). Shipped with the product like the note's layout; a rebill's
 * e-mail is the bill's own template, with the note attached beside the bill.
 */
export const DEFAULT_CREDIT_NOTE_EMAIL_SUBJECT = 'Your {{ app.name }} credit note {{ creditNote.number }}: bill {{ bill.number }} cancelled';

export const DEFAULT_CREDIT_NOTE_EMAIL_BODY = `Dear {{ account.name }},

credit note {{ creditNote.number }} of {{ creditNote.date }} (account {{ account.number }}) cancels your bill {{ bill.number }} of {{ bill.date }} for {{ bill.periodStart }} to {{ bill.periodEnd }}. It is attached.

Reason: {{ creditNote.reason }}

The bill's total, {{ bill.total }} {{ bill.currency }}, is taken off your account; what you paid towards that bill stays on your account and goes to your other open bills, or to your next one.

{{ app.name }}
`;
