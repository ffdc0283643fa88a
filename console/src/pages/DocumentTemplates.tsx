// Invoice and e-mail templates: the list (the product's defaults, templateID 0, and the
// app's own), one template's text, a form to make or change one, and a preview with the
// sample bill. The API checks a template by filling it with the sample bill and names the
// line of a Liquid error; the form shows that message under the field it is about.
import { atText } from '../api/dates.ts';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Button, Card, Code, Group, Loader, SegmentedControl, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { ApiError, call, fetchFile, read, type Data } from '../api/client.ts';
import { DataTable, type Column } from '../components/DataTable.tsx';
import { openBlob } from '../components/download.ts';
import { formErrors, notifyDone, notifyError, StatusBadge } from '../components/feedback.tsx';
import { useSession } from '../session.tsx';
import { useDocumentTemplates } from '../api/queries.ts';

type DocTemplate = Data<'/billing/documents/get-document-templates'>['templates'][number];
type Kind = 'invoice' | 'email';
type Draft = { kind: Kind; name: string; subject: string; body: string };

const columns: Column<DocTemplate>[] = [
  { header: 'Id', cell: ({ row }) => row.original.templateID || 'default' },
  { header: 'Kind', accessorKey: 'kind' },
  { header: 'Name', accessorKey: 'name' },
  { header: 'Version', accessorKey: 'version' },
  { header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.archiveStatus ? 'archived' : 'active'} /> },
  { header: 'Changed', cell: ({ row }) => (row.original.templateID ? `${atText(row.original.modifiedAt)} by ${row.original.modifiedBy}` : 'shipped with the product') },
];

const templatesRead = (data: { kind?: Kind; templateID?: number }) =>
  read('/billing/documents/get-document-templates', { method: 'Retrieve', action: 'Retrieve Document Templates', apiVersion: 'v2', data });

export function DocumentTemplates() {
  const { can } = useSession();
  const navigate = useNavigate();
  const list = useDocumentTemplates();
  return (
    <Stack>
      <TemplatesTabs active="documents" />
      <Group justify="space-between">
        <Title order={2}>Invoice and e-mail templates</Title>
        {can('admin') && (
          <Button component={Link} to="/document-templates/new">
            New document template
          </Button>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        A pricing template names the invoice and e-mail template its bills use; "default" is the product's own, used when none is named.
      </Text>
      <DataTable
        columns={columns}
        data={list.data?.templates}
        loading={list.isLoading}
        onRowClick={(t) => navigate(`/document-templates/${t.templateID}?kind=${t.kind}`)}
        rowLabel={(t) => `Open ${t.kind} template ${t.name}`}
        testId="document-templates-table"
      />
    </Stack>
  );
}

/** The two kinds of templates, one tab each, at the top of both lists. */
export function TemplatesTabs({ active }: { active: 'pricing' | 'documents' }) {
  const navigate = useNavigate();
  return (
    <SegmentedControl
      w="fit-content"
      value={active}
      onChange={(v) => navigate(v === 'pricing' ? '/templates' : '/document-templates')}
      data={[
        { value: 'pricing', label: 'Pricing templates' },
        { value: 'documents', label: 'Invoice and e-mail templates' },
      ]}
    />
  );
}

/** One template (or a new one): its text in a form an admin may save, and its preview. */
export function DocumentTemplatePage() {
  const param = useParams().templateID;
  const location = useLocation();
  const making = param === undefined;
  const templateID = making ? undefined : Number(param);
  const queryKind = (new URLSearchParams(location.search).get('kind') as Kind | null) ?? undefined;
  const { can } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const one = useQuery({
    queryKey: ['document-template', templateID, queryKind],
    enabled: !making,
    queryFn: async () => (await templatesRead({ templateID: templateID!, ...(templateID === 0 && queryKind ? { kind: queryKind } : {}) })).templates[0] ?? null,
  });
  const t = one.data ?? null;
  const form = useForm<Draft>({ mode: 'controlled', initialValues: { kind: queryKind ?? 'invoice', name: '', subject: '', body: '' } });
  const [other, setOther] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<{ pdf: string | null; text: string | null }>({ pdf: null, text: null });
  useEffect(() => {
    if (t) form.setValues({ kind: t.kind as Kind, name: t.templateID ? t.name : `${t.name} (copy)`, subject: t.subject ?? '', body: t.body });
    // Another template (or version) opened in the same page: the last preview was of other text.
    setPreview({ pdf: null, text: null });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [t?.templateID, t?.version, t?.kind]);
  useEffect(() => () => void (preview.pdf && URL.revokeObjectURL(preview.pdf)), [preview.pdf]);

  if (!making && one.isLoading) return <Loader />;
  if (!making && !t) return <Alert color="red">No document template {param}.</Alert>;
  // The defaults are the product's: they are read and copied, never changed.
  const editable = can('admin') && (making || (t !== null && t.templateID !== 0));
  const v = form.getValues();

  const showErrors = (err: unknown) => {
    if (!(err instanceof ApiError)) return notifyError(err);
    const { fields, other: rest } = formErrors(err, 'data.', (p) => p === 'name' || p === 'subject' || p === 'body' || p === 'kind');
    form.setErrors(fields);
    setOther(rest);
  };
  const save = async (values: Draft) => {
    setBusy(true);
    setOther([]);
    form.clearErrors();
    const subject = values.kind === 'email' ? { subject: values.subject } : {};
    try {
      if (making || t?.templateID === 0) {
        const { headers } = await call('/billing/documents/make-document-template', {
          method: 'Create',
          action: 'Create Document Template',
          apiVersion: 'v2',
          data: { kind: values.kind, name: values.name, body: values.body, ...subject },
        });
        const id = headers.get('x-billrun-template-id');
        notifyDone(`Template ${values.name} made.`);
        await queryClient.invalidateQueries({ queryKey: ['document-templates'] });
        navigate(`/document-templates/${id}?kind=${values.kind}`);
      } else {
        const { headers } = await call('/billing/documents/update-document-template', {
          method: 'Update',
          action: 'Update Document Template',
          apiVersion: 'v2',
          data: { templateID: t!.templateID, name: values.name, body: values.body, ...subject },
        });
        notifyDone(`Saved as version ${headers.get('x-billrun-template-version') ?? ''}; documents already made keep theirs.`);
        await queryClient.invalidateQueries({ queryKey: ['document-templates'] });
        await queryClient.invalidateQueries({ queryKey: ['document-template', templateID] });
      }
    } catch (err) {
      showErrors(err);
    } finally {
      setBusy(false);
    }
  };
  // The text in the form, saved or not, filled with the sample bill: what a bill would look like.
  const runPreview = async () => {
    setOther([]);
    form.clearErrors();
    try {
      const { blob } = await fetchFile('/billing/documents/preview-document-template', {
        method: 'Retrieve',
        action: 'Preview Document Template',
        apiVersion: 'v2',
        // A draft only for an admin (the API's rule, as saving one is); others see the saved version.
        data:
          can('admin') || t === null
            ? { kind: v.kind, body: v.body, ...(v.kind === 'email' ? { subject: v.subject } : {}) }
            : { templateID: t.templateID, kind: t.kind as Kind, ...(t.templateID !== 0 ? { version: t.version } : {}) },
      });
      if (v.kind === 'invoice') setPreview({ pdf: URL.createObjectURL(blob), text: null });
      else setPreview({ pdf: null, text: await blob.text() });
    } catch (err) {
      showErrors(err);
    }
  };

  return (
    <form onSubmit={form.onSubmit((values) => void save(values))}>
      <Stack>
        <Anchor component={Link} to="/document-templates" size="sm">
          ← Invoice and e-mail templates
        </Anchor>
        <Group gap="xs">
          <Title order={2}>{making ? 'New document template' : `${t!.name}`}</Title>
          {t && <Badge variant="outline">{t.kind}</Badge>}
          {t && <Badge variant="light">{t.templateID ? `version ${t.version}` : 'default'}</Badge>}
        </Group>
        {t?.templateID === 0 && (
          <Text size="sm" c="dimmed">
            The product's default. {can('admin') ? 'Saving makes a new template from this text.' : ''}
          </Text>
        )}
        <Card withBorder>
          <Stack gap="sm">
            {making && (
              <SegmentedControl
                w="fit-content"
                data={[
                  { value: 'invoice', label: 'Invoice (PDF)' },
                  { value: 'email', label: 'E-mail' },
                ]}
                {...form.getInputProps('kind')}
              />
            )}
            <TextInput label="Name" required readOnly={!editable && !(t?.templateID === 0 && can('admin'))} {...form.getInputProps('name')} />
            {v.kind === 'email' && <TextInput label="Subject" description="one line, Liquid" readOnly={!can('admin')} {...form.getInputProps('subject')} />}
            <Textarea
              label="Body"
              description={v.kind === 'invoice' ? 'Liquid writing the Markdown subset of docs/documents.md (# title, ## heading, | tables |, ---)' : 'Liquid, plain text'}
              autosize
              minRows={12}
              maxRows={28}
              styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
              readOnly={!can('admin')}
              {...form.getInputProps('body')}
            />
            {other.length > 0 && (
              <Alert color="red" title="Refused">
                {other.map((o) => (
                  <div key={o}>{o}</div>
                ))}
              </Alert>
            )}
            <Group>
              {can('admin') && (
                <Button type="submit" loading={busy}>
                  {making || t?.templateID === 0 ? 'Make template' : 'Save (new version)'}
                </Button>
              )}
              <Button variant="default" onClick={() => void runPreview()}>
                Preview with the sample bill
              </Button>
            </Group>
          </Stack>
        </Card>
        {preview.pdf && (
          <Card withBorder>
            <Group justify="space-between" mb="xs">
              <Text fw={600}>Preview (sample bill)</Text>
              <Button size="xs" variant="default" onClick={() => void fetch(preview.pdf!).then(async (r) => openBlob(await r.blob()))}>
                Open in a new tab
              </Button>
            </Group>
            <iframe title="Invoice preview" src={preview.pdf} style={{ width: '100%', height: 600, border: 0 }} data-testid="preview-pdf" />
          </Card>
        )}
        {preview.text !== null && (
          <Card withBorder>
            <Text fw={600} mb="xs">
              Preview (sample bill)
            </Text>
            <Code block data-testid="preview-text">
              {preview.text}
            </Code>
          </Card>
        )}
      </Stack>
    </form>
  );
}
