// Request and response shapes of the document operations (templates, bill documents,
// the print extract).
import { Type, type Static } from 'typebox';
import { named } from '../http/openapi.ts';
import { VISIBLE_LINE } from '../primitives.ts';

const Id = Type.Integer({ minimum: 1, maximum: 9007199254740991 });
export const TemplateId = Type.Integer({ minimum: 0, maximum: 2147483647, description: '0: the default shipped with the product' });
export const TEMPLATE_KINDS = ['invoice', 'email'] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];
const Kind = Type.Enum(TEMPLATE_KINDS, { description: 'invoice: the bill as a PDF; email: the message that carries it' });
// Templates are text an administrator writes; 200 kB is far beyond any bill's layout.
const Body = Type.String({ minLength: 1, maxLength: 200_000, description: 'Liquid text (docs/documents.md)' });
const Subject = Type.String({ minLength: 1, maxLength: 2000, description: 'e-mail templates: the subject, Liquid' });
// No control character, and not only spaces (a fuzzer's "  " was taken).
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: VISIBLE_LINE });

export const MakeTemplateData = Type.Object(
  { kind: Kind, name: Name, subject: Type.Optional(Subject), body: Body },
  { additionalProperties: false },
);
export type MakeTemplateData = Static<typeof MakeTemplateData>;

export const UpdateTemplateData = Type.Object(
  { templateID: Id, name: Type.Optional(Name), subject: Type.Optional(Subject), body: Body },
  { additionalProperties: false, description: 'a new version; documents already rendered keep theirs' },
);
export type UpdateTemplateData = Static<typeof UpdateTemplateData>;

export const GetTemplatesData = Type.Object(
  {
    kind: Type.Optional(Kind),
    templateID: Type.Optional(TemplateId),
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'with templateID: that version instead of the current one' })),
  },
  { additionalProperties: false },
);
export type GetTemplatesData = Static<typeof GetTemplatesData>;

export const ArchiveTemplateData = Type.Object(
  { templateID: Id, archiveStatus: Type.Union([Type.Literal(0), Type.Literal(1)]) },
  { additionalProperties: false },
);

export const PreviewTemplateData = Type.Object(
  {
    kind: Type.Optional(Kind),
    templateID: Type.Optional(TemplateId),
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
    subject: Type.Optional(Subject),
    body: Type.Optional(Body),
  },
  { additionalProperties: false, description: 'a saved template (templateID, kind for 0) or a draft (kind, body, subject)' },
);
export type PreviewTemplateData = Static<typeof PreviewTemplateData>;

export const TemplateRecord = named('DocumentTemplate', Type.Object({
  templateID: Type.Integer(),
  kind: Type.Enum(['invoice', 'email']),
  name: Type.String(),
  version: Type.Integer(),
  archiveStatus: Type.Integer(),
  subject: Type.Union([Type.String(), Type.Null()]),
  body: Type.String(),
  createdAt: Type.String(),
  createdBy: Type.String(),
  modifiedAt: Type.String(),
  modifiedBy: Type.String(),
}));
export type TemplateRecord = Static<typeof TemplateRecord>;
